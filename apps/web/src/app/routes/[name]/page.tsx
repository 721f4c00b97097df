import { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Metadata } from "next";
import { ObjectViews } from "@/components/config/object-views";
import { EditRouteConfig } from "@/components/config/route-config-pages";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({ params }: PageProps<"/routes/[name]">): Promise<Metadata> {
  return { title: `Routes ${routeParam((await params).name)}` };
}

export default async function RouteConfigPage({ params }: PageProps<"/routes/[name]">) {
  const name = routeParam((await params).name);
  return (
    <ObjectViews
      kind={ResourceKind.ROUTE_CONFIGURATION}
      label="route configuration"
      name={name}
      form={<EditRouteConfig name={name} />}
    />
  );
}
