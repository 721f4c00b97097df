import type { Metadata } from "next";
import { NewUser } from "@/components/access/user-pages";

export const metadata: Metadata = { title: "New user" };

export default function NewUserPage() {
  return <NewUser />;
}
