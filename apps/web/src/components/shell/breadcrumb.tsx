"use client";

import { usePathname } from "next/navigation";
import { ChevronRightIcon } from "@/components/ui/icons";
import { activeNavItem } from "./nav";

export function Breadcrumb() {
  const item = activeNavItem(usePathname());
  return (
    <nav aria-label="Breadcrumb" className="min-w-0">
      <ol className="flex items-center gap-1.5 text-sm">
        <li className="text-fg-subtle">Switchyard</li>
        {item && (
          <li className="flex min-w-0 items-center gap-1.5">
            <ChevronRightIcon className="size-3.5 shrink-0 text-fg-subtle" />
            <span aria-current="page" className="truncate font-medium text-fg">
              {item.label}
            </span>
          </li>
        )}
      </ol>
    </nav>
  );
}
