"use client";

import type { Route } from "next";
import type { ReactNode } from "react";
import { buttonClass } from "@/components/ui/button";
import { KeyIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { EmptyState, LoadingBlock, PageHeader } from "@/components/ui/page-states";
import { useCaller } from "./use-caller";

/**
 * An admin's page: its content for an admin, and for anyone else a plain explanation instead of
 * calls the server would refuse. The server stays the authority (access-rules.ts).
 */
export function AdminOnly({
  title,
  what,
  children,
}: {
  /** The page's title, kept for everyone so the page says where the reader is. */
  title: string;
  /** "manage users", "read the audit log" */
  what: string;
  children: ReactNode;
}) {
  const caller = useCaller();
  if (caller.role === "admin") return children;
  if (caller.role === undefined) return <LoadingBlock label={`Loading ${title.toLowerCase()}…`} />;
  return (
    <div className="flex flex-col gap-6">
      <PageHeader title={title} />
      <EmptyState
        icon={<KeyIcon className="size-5" />}
        title="Admins only"
        actions={
          <Link href={"/tokens" as Route} className={buttonClass("secondary")}>
            Your API tokens
          </Link>
        }
      >
        Only an admin may {what}. You are signed in as {caller.username} ({caller.role}
        {caller.team ? `, team ${caller.team.name}` : ""}): ask an admin if you need a change.
      </EmptyState>
    </div>
  );
}
