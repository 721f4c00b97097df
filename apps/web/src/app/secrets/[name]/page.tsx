import type { Metadata } from "next";
import { EditSecret } from "@/components/config/secret-pages";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({
  params,
}: PageProps<"/secrets/[name]">): Promise<Metadata> {
  return { title: `Secret ${routeParam((await params).name)}` };
}

export default async function SecretPage({ params }: PageProps<"/secrets/[name]">) {
  return <EditSecret name={routeParam((await params).name)} />;
}
