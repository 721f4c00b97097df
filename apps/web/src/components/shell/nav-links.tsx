"use client";

import { skipToken, useQuery } from "@connectrpc/connect-query";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { usePathname } from "next/navigation";
import { useEffect, useRef } from "react";
import { type CallerRole, useCaller } from "@/components/access/use-caller";
import { Link } from "@/components/ui/link";
import { OPEN_REVIEWS } from "@/lib/review-filter";
import { activeNavItem, type NavCounts, navSectionsFor } from "./nav";

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
  // An admin sees how many review requests wait for them. The same call as the Reviews and
  // Changes pages' (one cached answer); one indexed read while no request is open.
  const open = useQuery(
    ConfigService.method.listReviewRequests,
    role === "admin" ? OPEN_REVIEWS : skipToken,
    { staleTime: 30_000 },
  );
  const counts: NavCounts = { "/reviews": open.data?.requests.length ?? 0 };
  return <NavList pathname={pathname} callerRole={role} counts={counts} />;
}

/**
 * Scrolls the sidebar (the nav's scrolling ancestor, `data-nav-scroll`) so that the current item
 * is in its view, centred, when it is not; the page itself never moves.
 */
function revealCurrentItem(nav: HTMLElement | null): void {
  const item = nav?.querySelector('[aria-current="page"]');
  const scroller = nav?.closest<HTMLElement>("[data-nav-scroll]");
  if (!item || !scroller) return;
  const view = scroller.getBoundingClientRect();
  const box = item.getBoundingClientRect();
  if (box.top < view.top || box.bottom > view.bottom)
    scroller.scrollTop += box.top - view.top - (view.height - box.height) / 2;
  if (box.left < view.left || box.right > view.right)
    scroller.scrollLeft += box.left - view.left - (view.width - box.width) / 2;
}

function NavList({
  pathname,
  callerRole,
  counts = {},
}: {
  pathname: string;
  callerRole: CallerRole | undefined;
  counts?: NavCounts;
}) {
  const active = activeNavItem(pathname);
  const sections = navSectionsFor(callerRole);
  const navRef = useRef<HTMLElement>(null);
  // The list is taller than a laptop's window: the page's own item is scrolled into the sidebar's
  // view when a page is opened (a link, a reload) or the items change (the caller's sections).
  const itemCount = sections.reduce((n, section) => n + section.items.length, 0);
  useEffect(() => {
    if (active === undefined || itemCount === 0) return;
    revealCurrentItem(navRef.current);
  }, [active, itemCount]);
  return (
    <nav ref={navRef} aria-label="Main" className="flex gap-1 md:flex-col md:gap-6">
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
                const count = counts[item.href] ?? 0;
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
                      {count > 0 && (
                        <>
                          <span
                            aria-hidden="true"
                            className="ml-auto rounded-full bg-accent-soft px-1.5 text-xs font-semibold tabular-nums text-accent"
                          >
                            {count}
                          </span>
                          <span className="sr-only"> ({count} open)</span>
                        </>
                      )}
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
