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

const icons: Record<string, IconComponent> = {
  clusters: ServerIcon,
  listeners: RadioIcon,
  "route-configurations": RouteIcon,
  "node-groups": LayersIcon,
  "runtime-layers": SlidersIcon,
  secrets: KeyIcon,
};

export function KindIcon({ kind, ...props }: IconProps & { kind: KindInfo }) {
  const Icon = icons[kind.slug] ?? ShapesIcon;
  return <Icon {...props} />;
}
