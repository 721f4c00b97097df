"use client";

// biome-ignore lint/style/noRestrictedImports: the one place next/link is used, to wrap it
import NextLink, { type LinkProps } from "next/link";
import { useState } from "react";

/**
 * The console's link: next/link that prefetches its page only once the user shows intent (the
 * pointer over it, keyboard focus, a touch), as Next's prefetching guide describes. next/link
 * alone prefetches every link as it scrolls into view: a table of a hundred rows sent a hundred
 * requests for server-rendered payloads as the page loaded, which the server and the browser
 * then worked through while the user waited for the page. `prefetch={false}` still means never.
 */
export function Link<RouteType>({
  prefetch,
  onMouseEnter,
  onFocus,
  onTouchStart,
  ...props
}: LinkProps<RouteType>) {
  const [intent, setIntent] = useState(false);
  return (
    <NextLink
      {...props}
      prefetch={prefetch === false || !intent ? false : (prefetch ?? null)}
      onMouseEnter={(event) => {
        setIntent(true);
        onMouseEnter?.(event);
      }}
      onFocus={(event) => {
        setIntent(true);
        onFocus?.(event);
      }}
      onTouchStart={(event) => {
        setIntent(true);
        onTouchStart?.(event);
      }}
    />
  );
}
