import type { Metadata } from "next";
import { TeamList } from "@/components/access/team-pages";

export const metadata: Metadata = { title: "Teams" };

export default function TeamsPage() {
  return <TeamList />;
}
