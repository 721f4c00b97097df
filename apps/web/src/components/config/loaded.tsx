"use client";

import { Code, type ConnectError } from "@connectrpc/connect";
import type { Route } from "next";
import type { ReactNode } from "react";
import { Link } from "@/components/ui/link";
import { EditorSkeleton, LoadError, PageHeader } from "@/components/ui/page-states";

/** An edit page's states: loading, not in the draft, failed, or loaded (`children(data)`). */
export function Loaded<T>({
  query,
  what,
  listHref,
  listLabel,
  children,
}: {
  query: {
    data: T | undefined;
    error: ConnectError | null;
    isFetching: boolean;
    refetch: () => unknown;
  };
  what: string;
  listHref: Route;
  listLabel: string;
  children: (data: T) => ReactNode;
}) {
  if (query.data !== undefined) return children(query.data);
  if (query.error?.code === Code.NotFound) {
    return (
      <div className="flex flex-col gap-6">
        <PageHeader title={`No ${what}`} />
        <p className="text-fg-muted">
          The draft holds no {what} by this name: it may have been deleted or renamed.{" "}
          <Link href={listHref} className="font-medium text-accent hover:underline">
            Back to {listLabel}
          </Link>
        </p>
      </div>
    );
  }
  if (query.error) {
    return (
      <LoadError
        what={`the ${what}`}
        error={query.error}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  }
  return <EditorSkeleton label={`the ${what}`} />;
}
