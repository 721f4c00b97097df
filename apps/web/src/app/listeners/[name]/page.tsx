import { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Metadata } from "next";
import { EditListener } from "@/components/config/listener-pages";
import { ObjectViews } from "@/components/config/object-views";
import { routeParam } from "@/lib/route-param";

export async function generateMetadata({
  params,
}: PageProps<"/listeners/[name]">): Promise<Metadata> {
  return { title: `Listener ${routeParam((await params).name)}` };
}

export default async function ListenerPage({ params }: PageProps<"/listeners/[name]">) {
  const name = routeParam((await params).name);
  return (
    <ObjectViews
      kind={ResourceKind.LISTENER}
      label="listener"
      name={name}
      form={<EditListener name={name} />}
    />
  );
}
