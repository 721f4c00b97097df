"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { type CallerRole, useCaller } from "@/components/access/use-caller";
import { activeNavItem, navSectionsFor } from "./nav";

/**
 * The sidebar's navigation: one labelled list per section, the current page marked. On narrow
 * screens the sections flow into one row. Links to pages the caller's role cannot use are left
 * out (nav.ts); the server refuses their calls anyway.
 */
export function NavLinks() {
  const pathname = usePathname();
  // The login page has no caller: asking WhoAmI there would only be refused.
  return pathname === "/login" ? (
    <NavList pathname={pathname} callerRole={undefined} />
  ) : (
    <SignedInNav pathname={pathname} />
  );
}

function SignedInNav({ pathname }: { pathname: string }) {
  const { role } = useCaller();
  return <NavList pathname={pathname} callerRole={role} />;
}

function NavList({
  pathname,
  callerRole,
}: {
  pathname: string;
  callerRole: CallerRole | undefined;
}) {
  const active = activeNavItem(pathname);
  const sections = navSectionsFor(callerRole);
  return (
    <nav aria-label="Main" className="flex gap-1 md:flex-col md:gap-6">
      {sections.map((section) => {
        const headingId = `nav-${section.label.toLowerCase()}`;
        return (
          <div key={section.label}>
            <h2
              id={headingId}
              className="sr-only px-2 pb-1.5 text-[11px] md:not-sr-only md:block font-medium uppercase tracking-wider text-fg-subtle"
            >
              {section.label}
            </h2>
            <ul aria-labelledby={headingId} className="flex gap-1 md:flex-col md:gap-0.5">
              {section.items.map((item) => {
                const current = item === active;
                const Icon = item.icon;
                return (
                  <li key={item.href}>
                    <Link
                      href={item.href}
                      aria-current={current ? "page" : undefined}
                      className={`flex h-8 items-center gap-2.5 rounded-md px-2 font-medium transition-colors ${
                        current
                          ? "bg-surface text-fg shadow-xs ring-1 ring-border"
                          : "text-fg-muted hover:bg-surface-hover hover:text-fg"
                      }`}
                    >
                      <Icon className={`size-4 ${current ? "text-accent" : ""}`} />
                      {item.label}
                    </Link>
                  </li>
                );
              })}
            </ul>
          </div>
        );
      })}
    </nav>
  );
}
