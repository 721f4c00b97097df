import type { Route } from "next";
import {
  ActivityIcon,
  DatabaseIcon,
  DiffIcon,
  GaugeIcon,
  HistoryIcon,
  type IconComponent,
  KeyIcon,
  LayersIcon,
  ListChecksIcon,
  NetworkIcon,
  RadioIcon,
  ReviewIcon,
  RouteIcon,
  ScrollTextIcon,
  ServerIcon,
  SignpostIcon,
  SlidersIcon,
  UploadIcon,
  UserIcon,
  UsersIcon,
  WavesIcon,
} from "@/components/ui/icons";
import { type CallerRole, sectionsForRole } from "@/lib/nav-roles";

export interface NavItem {
  readonly href: Route;
  readonly label: string;
  readonly icon: IconComponent;
  /** Only these roles see the link (the server refuses the page's calls to the others). */
  readonly roles?: readonly CallerRole[];
}

/** A count shown beside a nav item (the open review requests, for an admin), by the item's href. */
export type NavCounts = Partial<Record<NavItem["href"], number>>;

export interface NavSection {
  /** Shown above the section's links; also names the section's list for screen readers. */
  readonly label: string;
  readonly items: readonly NavItem[];
}

/**
 * The console's navigation, in sidebar order. A page gets an entry here when it exists; there
 * are no placeholder links.
 */
export const navSections: readonly NavSection[] = [
  {
    label: "Fleet",
    items: [
      { href: "/", label: "Overview", icon: GaugeIcon },
      { href: "/nodes", label: "Nodes", icon: ActivityIcon },
    ],
  },
  {
    label: "Configure",
    items: [
      { href: "/inventory", label: "Configuration", icon: DatabaseIcon },
      { href: "/clusters", label: "Clusters", icon: ServerIcon },
      { href: "/routes", label: "Routes", icon: RouteIcon },
      { href: "/listeners", label: "Listeners", icon: RadioIcon },
      { href: "/node-groups", label: "Node groups", icon: LayersIcon },
      { href: "/runtime", label: "Runtime", icon: SlidersIcon },
      { href: "/secrets", label: "Secrets", icon: KeyIcon },
      { href: "/topology", label: "Topology", icon: NetworkIcon },
      { href: "/route-tester", label: "Route tester", icon: SignpostIcon },
      { href: "/route-tests", label: "Route tests", icon: ListChecksIcon },
      { href: "/import", label: "Import / export", icon: UploadIcon },
    ],
  },
  {
    label: "Release",
    items: [
      { href: "/changes", label: "Changes", icon: DiffIcon },
      { href: "/reviews", label: "Reviews", icon: ReviewIcon },
      { href: "/rollouts", label: "Rollouts", icon: WavesIcon },
      { href: "/history", label: "History", icon: HistoryIcon },
    ],
  },
  {
    label: "Access",
    items: [
      { href: "/users", label: "Users", icon: UserIcon, roles: ["admin"] },
      { href: "/teams", label: "Teams", icon: UsersIcon, roles: ["admin"] },
      { href: "/tokens", label: "API tokens", icon: KeyIcon, roles: ["admin", "member", "viewer"] },
      { href: "/audit", label: "Audit log", icon: ScrollTextIcon, roles: ["admin"] },
    ],
  },
];

/** The sections as `role` sees them (lib/nav-roles.ts). */
export function navSectionsFor(role: CallerRole | undefined): readonly NavSection[] {
  return sectionsForRole(navSections, role);
}

/** The nav item a pathname belongs to: "/" only matches itself, other items their subtree. */
export function activeNavItem(pathname: string): NavItem | undefined {
  const items = navSections.flatMap((s) => s.items);
  return items.find((item) =>
    item.href === "/"
      ? pathname === "/"
      : pathname === item.href || pathname.startsWith(`${item.href}/`),
  );
}
