import type { Metadata } from "next";
import { EditRuntimeLayer } from "@/components/config/runtime-pages";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({
  params,
}: PageProps<"/runtime/[name]">): Promise<Metadata> {
  return { title: `Runtime layer ${routeParam((await params).name)}` };
}

export default async function RuntimeLayerPage({ params }: PageProps<"/runtime/[name]">) {
  return <EditRuntimeLayer name={routeParam((await params).name)} />;
}
