"use client";

import { useCallback, useSyncExternalStore } from "react";

/*
 * Who publishes, rolls back or imports. Until the console has accounts, the API takes the author
 * from the x-switchyard-author header (packages/server/src/api/publish-handlers.ts, authorOf); the
 * console remembers the name this browser last used.
 */
const storageKey = "switchyard.author";
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onStorage = (event: StorageEvent) => {
    if (event.key === storageKey) listener();
  };
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", onStorage);
  };
}

function read(): string {
  try {
    return window.localStorage.getItem(storageKey) ?? "";
  } catch {
    // Storage can be disabled (privacy settings): the name is then asked for every time.
    return "";
  }
}

/** The remembered author name ("" until one is given) and a setter that remembers it. */
export function useAuthor(): [string, (name: string) => void] {
  const author = useSyncExternalStore(subscribe, read, () => "");
  const setAuthor = useCallback((name: string) => {
    try {
      window.localStorage.setItem(storageKey, name.trim());
    } catch {
      // See read().
    }
    for (const l of listeners) l();
  }, []);
  return [author, setAuthor];
}

/** Call options naming the author, for a write through the ConfigService client. */
export function asAuthor(author: string): { headers: Record<string, string> } {
  return author.trim() ? { headers: { "x-switchyard-author": author.trim() } } : { headers: {} };
}
