import type { Metadata } from "next";
import { EditRouteConfig } from "@/components/config/route-config-pages";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({ params }: PageProps<"/routes/[name]">): Promise<Metadata> {
  return { title: `Routes ${routeParam((await params).name)}` };
}

export default async function RouteConfigPage({ params }: PageProps<"/routes/[name]">) {
  return <EditRouteConfig name={routeParam((await params).name)} />;
}
