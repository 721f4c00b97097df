"use client";

import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { LogoMark } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { ApiStatus } from "./api-status";
import { Breadcrumb } from "./breadcrumb";
import { NavLinks } from "./nav-links";
import { UserMenu } from "./user-menu";

/**
 * Pages drawn without the console's frame: the login page belongs to no one signed in, so it has
 * no navigation (whose links would prefetch pages that need a session), no API status (which
 * would say "Connecting" forever: nothing there asks the API) and no user menu.
 */
const BARE_PATHS: ReadonlySet<string> = new Set(["/login"]);

/**
 * The console's frame: a sidebar with the product and its navigation, a top bar with where you
 * are and whether the API answers, and the page. Below the `md` breakpoint the sidebar becomes a
 * bar above the page. The sidebar scrolls on its own when its items are taller than the window.
 */
export function AppShell({ children }: { children: ReactNode }) {
  const pathname = usePathname();
  if (BARE_PATHS.has(pathname)) return <BarePage>{children}</BarePage>;
  return (
    <div className="flex min-h-dvh flex-col md:flex-row">
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-accent px-3 py-2 font-medium text-accent-fg focus:not-sr-only focus:fixed focus:top-3 focus:left-3"
      >
        Skip to content
      </a>

      {/* The aside spans the page's height (its background and border); its content stays put. */}
      <aside className="shrink-0 border-b bg-surface-muted md:w-60 md:border-r md:border-b-0">
        <div className="flex items-center gap-4 overflow-x-auto px-4 py-2 md:sticky md:top-0 md:h-dvh md:flex-col md:items-stretch md:gap-0 md:overflow-visible md:p-0">
          <div className="flex items-center md:h-14 md:border-b md:px-4">
            <Link
              href="/"
              className="flex items-center gap-2.5 rounded-md font-semibold tracking-tight"
            >
              <Logo />
              <span className="text-[15px]">Switchyard</span>
            </Link>
          </div>
          {/* Scrolls on its own (the window may be shorter than the list), with shadows at an
              edge that has more beyond it (nav-scroll in globals.css). */}
          <div
            data-nav-scroll=""
            className="md:nav-scroll md:min-h-0 md:flex-1 md:overflow-y-auto md:overscroll-contain md:px-3 md:py-4"
          >
            <NavLinks />
          </div>
          <p className="hidden border-t px-4 py-3 text-xs text-fg-subtle md:block">
            Envoy xDS control plane
          </p>
        </div>
      </aside>

      <div className="flex min-w-0 flex-1 flex-col">
        <header className="sticky top-0 z-20 flex h-14 items-center gap-4 border-b bg-canvas/90 px-4 backdrop-blur-md md:px-8">
          <Breadcrumb />
          <div className="ml-auto flex items-center gap-4">
            <ApiStatus />
            <UserMenu />
          </div>
        </header>
        <main id="main" tabIndex={-1} className="flex-1 px-4 py-8 outline-none md:px-8">
          <div className="mx-auto w-full max-w-6xl">{children}</div>
        </main>
      </div>
    </div>
  );
}

/** A page on its own: the product's name above it, nothing that needs a session. */
function BarePage({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex h-14 items-center px-4 md:px-8">
        <span className="flex items-center gap-2.5 font-semibold tracking-tight">
          <Logo />
          <span className="text-[15px]">Switchyard</span>
        </span>
      </header>
      <main id="main" tabIndex={-1} className="flex-1 px-4 py-8 outline-none md:px-8">
        <div className="mx-auto w-full max-w-6xl">{children}</div>
      </main>
    </div>
  );
}

function Logo() {
  return (
    <span className="grid size-7 place-items-center rounded-md bg-accent text-accent-fg shadow-sm">
      <LogoMark className="size-4" strokeWidth={2.25} />
    </span>
  );
}
