"use client";

import type { ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import dynamic from "next/dynamic";
import { usePathname, useSearchParams } from "next/navigation";
import type { ReactNode } from "react";
import { Link } from "@/components/ui/link";
import { EditorSkeleton } from "@/components/ui/page-states";
import type { ConfigKindLabel } from "@/lib/write-access";

/** The YAML editor's code (and the YAML library) loads when its tab is opened. */
const EnvoyYamlEditor = dynamic(
  () => import("./envoy-yaml-editor").then((m) => m.EnvoyYamlEditor),
  { ssr: false, loading: () => <EditorSkeleton label="the Envoy YAML editor" /> },
);

/**
 * A stored object's two views: the form (`form`), and the whole object as Envoy YAML, fields the
 * form does not model included. The view is in the address (`?view=yaml`), so it can be shared
 * and survives a reload. Each view reads the object when it opens, so a save in one shows in the
 * other.
 */
export function ObjectViews({
  kind,
  label,
  name,
  form,
}: {
  kind: ResourceKind;
  label: ConfigKindLabel;
  name: string;
  form: ReactNode;
}) {
  const pathname = usePathname();
  const yaml = useSearchParams().get("view") === "yaml";
  const tab = (selected: boolean) =>
    `rounded-md px-3 py-1.5 text-sm font-medium ${selected ? "bg-surface text-fg shadow-xs ring-1 ring-border" : "text-fg-muted hover:text-fg"}`;
  return (
    <div className="flex flex-col gap-4">
      <nav
        aria-label={`Views of ${label} ${name}`}
        className="flex gap-1 self-start rounded-lg bg-surface-muted p-1"
      >
        <Link
          href={pathname as Route}
          aria-current={yaml ? undefined : "page"}
          className={tab(!yaml)}
        >
          Form
        </Link>
        <Link
          href={`${pathname}?view=yaml` as Route}
          aria-current={yaml ? "page" : undefined}
          className={tab(yaml)}
        >
          Envoy YAML
        </Link>
      </nav>
      {yaml ? <EnvoyYamlEditor kind={kind} name={name} label={label} /> : form}
    </div>
  );
}
