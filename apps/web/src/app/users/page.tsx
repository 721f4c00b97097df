import type { Metadata } from "next";
import { UserList } from "@/components/access/user-pages";

export const metadata: Metadata = { title: "Users" };

export default function UsersPage() {
  return <UserList />;
}
