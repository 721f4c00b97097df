import type { Metadata } from "next";
import { ListenerList } from "@/components/config/listener-list";

export const metadata: Metadata = { title: "Listeners" };

export default function ListenersPage() {
  return <ListenerList />;
}
