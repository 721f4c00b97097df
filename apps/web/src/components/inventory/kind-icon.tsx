import {
  type IconComponent,
  type IconProps,
  KeyIcon,
  LayersIcon,
  RadioIcon,
  RouteIcon,
  ServerIcon,
  ShapesIcon,
  SlidersIcon,
} from "@/components/ui/icons";
import type { KindInfo } from "@/lib/inventory";
import { type ResourceKindName, resourceKindName } from "@/lib/resource-kinds";

const icons: Record<ResourceKindName, IconComponent> = {
  CLUSTER: ServerIcon,
  LISTENER: RadioIcon,
  ROUTE_CONFIGURATION: RouteIcon,
  NODE_GROUP: LayersIcon,
  RUNTIME_LAYER: SlidersIcon,
  SECRET: KeyIcon,
};

export function KindIcon({ kind, ...props }: IconProps & { kind: KindInfo }) {
  const name = kind.kind === undefined ? undefined : resourceKindName(kind.kind);
  const Icon = name === undefined ? ShapesIcon : icons[name];
  return <Icon {...props} />;
}
