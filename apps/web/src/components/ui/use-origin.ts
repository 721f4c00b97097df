"use client";

import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

/** The page's origin ("http://localhost:3000"); empty while rendering on the server. */
export function useOrigin(): string {
  return useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => "",
  );
}
