import type { Metadata } from "next";
import { EditListener } from "@/components/config/listener-pages";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({
  params,
}: PageProps<"/listeners/[name]">): Promise<Metadata> {
  return { title: `Listener ${routeParam((await params).name)}` };
}

export default async function ListenerPage({ params }: PageProps<"/listeners/[name]">) {
  return <EditListener name={routeParam((await params).name)} />;
}
