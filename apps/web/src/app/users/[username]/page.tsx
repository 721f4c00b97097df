import type { Metadata } from "next";
import { EditUser } from "@/components/access/user-pages";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({
  params,
}: PageProps<"/users/[username]">): Promise<Metadata> {
  return { title: `User ${routeParam((await params).username)}` };
}

export default async function UserPage({ params }: PageProps<"/users/[username]">) {
  return <EditUser username={routeParam((await params).username)} />;
}
