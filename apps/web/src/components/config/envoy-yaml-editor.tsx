"use client";

import { useQuery } from "@connectrpc/connect-query";
import {
  ConfigService,
  type ImportResponse,
  type ResourceKind,
  Severity,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { useMutation } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { toast } from "sonner";
import { parseAllDocuments, stringify } from "yaml";
import { useWriteAccess } from "@/components/access/use-write-access";
import { IssueList } from "@/components/diff/issue-list";
import { UnsavedChangesGuard } from "@/components/form/unsaved-changes-guard";
import { Button } from "@/components/ui/button";
import { EditorSkeleton, LoadError } from "@/components/ui/page-states";
import { classifyRefusal, type Refusal } from "@/lib/refusal";
import type { ConfigKindLabel } from "@/lib/write-access";
import { capitalized } from "./saved-toast";
import { useConfigClient, useInvalidateConfig } from "./use-config-client";

/**
 * YAML 1.1 quoting, as the server's export writes it: Envoy reads YAML with yaml-cpp, which takes
 * `yes` and `on` for booleans, so such strings are quoted.
 */
const YAML_OPTIONS = { version: "1.1", lineWidth: 0, aliasDuplicateObjects: false } as const;

type Outcome =
  | { readonly t: "checked"; readonly response: ImportResponse; readonly text: string }
  | { readonly t: "saved"; readonly response: ImportResponse };

/**
 * One object as Envoy YAML, everything included: what the form models and what Switchyard keeps
 * as Envoy wrote it (network filters, typed configs, tracing, listener filters, ...). "Check" asks
 * the server what saving would do (Import with dry_run, scoped to this object), "Save to draft"
 * saves it; every problem is listed with its path and line, in Envoy's words, and a refused save
 * changes nothing.
 */
export function EnvoyYamlEditor({
  kind,
  name,
  label,
}: {
  kind: ResourceKind;
  name: string;
  /** "listener", as in "Listener “edge” saved". */
  label: ConfigKindLabel;
}) {
  const client = useConfigClient();
  const invalidate = useInvalidateConfig();
  const access = useWriteAccess(label, name);
  const query = useQuery(
    ConfigService.method.getEnvoyResource,
    { kind, name, version: 0n },
    { staleTime: 0 },
  );
  const loaded = query.data ? stringify(query.data.resources, YAML_OPTIONS) : undefined;
  const [text, setText] = useState<string | undefined>(undefined);
  const [syntax, setSyntax] = useState<string | undefined>(undefined);
  const id = useId();
  useEffect(() => {
    if (loaded !== undefined) setText((current) => current ?? loaded);
  }, [loaded]);

  const run = useMutation<Outcome, Refusal, { text: string; dryRun: boolean }>({
    mutationFn: async ({ text, dryRun }) => {
      try {
        const response = await client.import({
          content: text,
          filename: `${name}.yaml`,
          dryRun,
          object: { kind, name },
        });
        return dryRun ? { t: "checked", response, text } : { t: "saved", response };
      } catch (error) {
        throw classifyRefusal(error);
      }
    },
    onSuccess: (outcome) => {
      if (outcome.t !== "saved") return;
      toast.success(
        outcome.response.changes.length === 0
          ? `${capitalized(label)} “${name}” is unchanged`
          : `${capitalized(label)} “${name}” saved to the draft`,
        { description: "Not live yet: review and publish on Changes." },
      );
      void invalidate();
    },
  });

  if (query.isPending) return <EditorSkeleton label={`the Envoy YAML of ${label} “${name}”`} />;
  if (query.isError) {
    return (
      <LoadError
        what={`the Envoy YAML of ${label} “${name}”`}
        procedure="switchyard.v1.ConfigService/GetEnvoyResource"
        error={query.error}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  }
  const current = text ?? loaded ?? "";
  const dirty = loaded !== undefined && current !== loaded && run.data?.t !== "saved";
  const outcome = run.data;
  const checked = outcome?.t === "checked" && outcome.text === current ? outcome : undefined;
  const refusal = run.error;
  // Warnings of a check or save (an extension not validated, ...); notes of normalizations aside.
  const notes = outcome?.response.issues.filter((i) => i.severity !== Severity.INFO) ?? [];

  const submit = (dryRun: boolean) => {
    // Refused here, with its line, before anything is sent: text that is not YAML.
    const problem = yamlProblem(current);
    setSyntax(problem);
    if (problem === undefined) run.mutate({ text: current, dryRun });
  };

  return (
    <section aria-labelledby={`${id}-title`} className="flex flex-col gap-3">
      <UnsavedChangesGuard dirty={dirty} />
      <div className="rounded-xl border bg-surface p-5 shadow-xs">
        <h2 id={`${id}-title`} className="text-base font-semibold text-fg">
          Envoy YAML
        </h2>
        <p className="mt-1 text-fg-muted">
          The {label} as proxies receive it, with every field, including those the form does not
          show. Checked against Envoy&apos;s schema and rules when you check or save.
        </p>
        <label htmlFor={`${id}-text`} className="sr-only">
          Envoy YAML of {label} {name}
        </label>
        <textarea
          id={`${id}-text`}
          aria-label={`Envoy YAML of ${label} ${name}`}
          aria-invalid={syntax !== undefined || refusal?.t === "invalid"}
          className="mt-4 h-[32rem] w-full resize-y rounded-lg border bg-surface-muted p-3 font-mono text-xs leading-5 text-fg focus:outline-2 focus:outline-accent"
          spellCheck={false}
          value={current}
          readOnly={access.t === "denied"}
          onChange={(event) => {
            setText(event.target.value);
            setSyntax(undefined);
          }}
        />
        {syntax !== undefined && (
          <p role="alert" className="mt-2 text-sm text-danger">
            {syntax}
          </p>
        )}
        <div className="mt-3 flex flex-wrap items-center justify-end gap-3">
          {checked && (
            <span className="mr-auto text-xs text-fg-subtle">
              {checked.response.changes.length === 0
                ? "Valid, and the same as the draft."
                : "Valid: saving changes the draft."}
            </span>
          )}
          <Button disabled={run.isPending} onClick={() => submit(true)}>
            Check
          </Button>
          <Button
            variant="primary"
            disabled={run.isPending || access.t !== "allowed"}
            onClick={() => submit(false)}
          >
            Save to draft
          </Button>
        </div>
      </div>
      {refusal && (
        <div role="alert" className="rounded-xl border border-danger-border bg-surface p-5">
          <p className="font-medium text-danger">
            {refusal.t === "invalid" ? "Not saved: nothing changed" : refusal.message}
          </p>
          {refusal.t === "invalid" && (
            <div className="mt-3">
              <IssueList issues={refusal.issues} />
            </div>
          )}
        </div>
      )}
      {notes.length > 0 && (
        <div className="rounded-xl border bg-surface p-5">
          <IssueList issues={notes} />
        </div>
      )}
    </section>
  );
}

/** The first YAML syntax error in `text`, with its line, or undefined when it parses. */
function yamlProblem(text: string): string | undefined {
  for (const document of parseAllDocuments(text)) {
    const [error] = document.errors;
    if (error) {
      const line = error.linePos?.[0];
      return `YAML syntax error${line ? ` at line ${line.line}, column ${line.col}` : ""}: ${error.message.split("\n")[0]}`;
    }
  }
  return undefined;
}
