import type { Metadata } from "next";
import { NewTeam } from "@/components/access/team-pages";

export const metadata: Metadata = { title: "New team" };

export default function NewTeamPage() {
  return <NewTeam />;
}
