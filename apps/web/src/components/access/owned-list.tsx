"use client";

import type { Route } from "next";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Link } from "@/components/ui/link";

/** The names a team owns or may use, each with its remove button. */
export function OwnedList({
  label,
  items,
  none,
  mono,
  link,
  removeLabel,
  removeText = "Remove",
  onRemove,
  busy,
}: {
  label: string;
  items: readonly string[];
  none: ReactNode;
  mono?: boolean;
  link?: (name: string) => Route;
  removeLabel: (item: string) => string;
  removeText?: string;
  onRemove: (item: string) => void;
  busy: boolean;
}) {
  if (items.length === 0) return <p className="text-fg-muted">{none}</p>;
  return (
    <ul aria-label={label} className="divide-y rounded-lg border">
      {items.map((item) => (
        <li key={item} className="flex items-center justify-between gap-3 px-3 py-1.5">
          {link ? (
            <Link
              href={link(item)}
              className={`${mono ? "font-mono text-[13px]" : ""} text-fg hover:text-accent hover:underline`}
            >
              {item}
            </Link>
          ) : (
            <span className={mono ? "font-mono text-[13px]" : ""}>{item}</span>
          )}
          <Button
            variant="ghost"
            onClick={() => onRemove(item)}
            disabled={busy}
            aria-label={removeLabel(item)}
          >
            {removeText}
          </Button>
        </li>
      ))}
    </ul>
  );
}
