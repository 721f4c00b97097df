import {
  type IconComponent,
  type IconProps,
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
};

export function KindIcon({ kind, ...props }: IconProps & { kind: KindInfo }) {
  const Icon = icons[kind.slug] ?? ShapesIcon;
  return <Icon {...props} />;
}
