import type { Metadata } from "next";
import { EditTeam } from "@/components/access/team-pages";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({ params }: PageProps<"/teams/[name]">): Promise<Metadata> {
  return { title: `Team ${routeParam((await params).name)}` };
}

export default async function TeamPage({ params }: PageProps<"/teams/[name]">) {
  return <EditTeam name={routeParam((await params).name)} />;
}
