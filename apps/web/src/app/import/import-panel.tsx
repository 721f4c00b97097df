"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import {
  EnvoyResourceType,
  type ImportClash,
  type ImportClashAction,
  type ImportResponse,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { useMutation } from "@tanstack/react-query";
import type { Route } from "next";
import { type ChangeEvent, useId, useRef, useState } from "react";
import { FormProvider, useForm, useWatch } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { useConfigClient, useInvalidateConfig } from "@/components/config/use-config-client";
import { ChangeList } from "@/components/diff/change-list";
import { IssueList } from "@/components/diff/issue-list";
import { SelectField, TextAreaField } from "@/components/form/field";
import { UnsavedChangesGuard } from "@/components/form/unsaved-changes-guard";
import { Button, buttonClass } from "@/components/ui/button";
import { AlertTriangleIcon, CheckIcon, UploadIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { countChanges, describeCounts, groupIssues } from "@/lib/object-changes";
import { classifyRefusal, type Refusal, refusalTitle } from "@/lib/refusal";
import { type ClashChoices, clashKey, ImportClashes } from "./import-clashes";

/**
 * The type of resources pasted without "@type" (ImportRequest.resource_type), as Envoy Gateway
 * writes one type to a file (listeners.yaml, clusters.yaml, ...); "detect" when each names its
 * own, or the text is a bootstrap, a DiscoveryResponse or a config dump.
 */
const RESOURCE_TYPES = [
  {
    value: "detect",
    label: "Detect (resources name their @type)",
    type: EnvoyResourceType.UNSPECIFIED,
  },
  { value: "listeners", label: "Listeners", type: EnvoyResourceType.LISTENERS },
  { value: "clusters", label: "Clusters", type: EnvoyResourceType.CLUSTERS },
  { value: "routes", label: "Route configurations", type: EnvoyResourceType.ROUTES },
  {
    value: "endpoints",
    label: "Endpoints (ClusterLoadAssignments)",
    type: EnvoyResourceType.ENDPOINTS,
  },
  { value: "secrets", label: "Secrets (named, not imported)", type: EnvoyResourceType.SECRETS },
] as const;

const schema = z.object({
  content: z.string().refine((s) => s.trim() !== "", "Paste Envoy YAML or JSON, or choose a file."),
  filename: z.string(),
  resourceType: z.enum(RESOURCE_TYPES.map((t) => t.value) as [string, ...string[]]),
});
type ImportValues = z.infer<typeof schema>;

/** The choices as ImportRequest.choices, in a stable order (also what a preview is keyed by). */
function choiceList(choices: ClashChoices) {
  return [...choices.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, action]) => {
      const at = key.indexOf(":");
      return { object: { kind: Number(key.slice(0, at)), name: key.slice(at + 1) }, action };
    });
}

const choicesText = (choices: ClashChoices) => JSON.stringify(choiceList(choices));

/** What one Import call is asked: the form's values, the clash choices, dry run or not. */
type ImportCall = ImportValues & { readonly dryRun: boolean; readonly choices: ClashChoices };

/**
 * What the last Import call returned, and for which input and choices (a preview is only good for
 * those).
 */
type Outcome =
  | {
      readonly t: "preview";
      readonly response: ImportResponse;
      readonly content: string;
      readonly resourceType: string;
      readonly choices: string;
    }
  | { readonly t: "applied"; readonly response: ImportResponse };

const example = `# Envoy v3 resources, a DiscoveryResponse, a bootstrap or its static_resources,
# or an Envoy admin config dump (curl localhost:9901/config_dump?include_eds)
resources:
- "@type": type.googleapis.com/envoy.config.cluster.v3.Cluster
  name: backend
  type: EDS
  eds_cluster_config: { eds_config: { ads: {} } }
  load_assignment:
    cluster_name: backend
    endpoints:
    - lb_endpoints:
      - endpoint: { address: { socket_address: { address: 10.0.0.1, port_value: 8080 } } }`;

/**
 * Paste or upload Envoy config, preview what it changes in the draft (Import with dry_run), then
 * apply it (Import). Nothing is published: the result is reviewed on the Changes page.
 */
export function ImportPanel() {
  const client = useConfigClient();
  const invalidate = useInvalidateConfig();
  const fileInput = useRef<HTMLInputElement>(null);
  const fileId = useId();
  const form = useForm<ImportValues>({
    resolver: zodResolver(schema),
    defaultValues: { content: "", filename: "", resourceType: "detect" },
  });
  const content = useWatch({ control: form.control, name: "content" });
  const filename = useWatch({ control: form.control, name: "filename" });
  const resourceType = useWatch({ control: form.control, name: "resourceType" });

  // The clash choices are for the text and type they were made on: other text starts afresh (a
  // choice for an object that does not clash is refused).
  const [chosen, setChosen] = useState<{
    readonly content: string;
    readonly resourceType: string;
    readonly choices: ClashChoices;
  }>();
  const choices: ClashChoices =
    chosen?.content === content && chosen.resourceType === resourceType
      ? chosen.choices
      : new Map();
  // The last outcome stays on screen while a changed choice is previewed again.
  const [outcome, setOutcome] = useState<Outcome>();

  const run = useMutation<Outcome, Refusal, ImportCall>({
    mutationFn: async ({ content, filename, resourceType, dryRun, choices }) => {
      try {
        const type = RESOURCE_TYPES.find((t) => t.value === resourceType)?.type;
        const response = await client.import({
          content,
          filename,
          dryRun,
          resourceType: type ?? EnvoyResourceType.UNSPECIFIED,
          choices: choiceList(choices),
        });
        return dryRun
          ? { t: "preview", response, content, resourceType, choices: choicesText(choices) }
          : { t: "applied", response };
      } catch (error) {
        throw classifyRefusal(error);
      }
    },
    onError: () => setOutcome(undefined),
    onSuccess: (outcome) => {
      setOutcome(outcome);
      if (outcome.t !== "applied") return;
      const n = outcome.response.changes.length;
      toast.success(
        n === 0
          ? "Imported: the draft already had this content"
          : `Imported ${n} ${n === 1 ? "change" : "changes"} into the draft`,
        { description: "Not live yet: review and publish on Changes." },
      );
      void invalidate();
    },
  });

  // A preview of other text (or another type, or other choices) than what is in the form now is
  // no preview of it: Apply needs a current one, so nothing is imported unseen.
  const preview =
    outcome?.t === "preview" &&
    outcome.content === content &&
    outcome.resourceType === resourceType &&
    outcome.choices === choicesText(choices)
      ? outcome
      : undefined;
  // The preview on screen, while its text is still the form's (a changed choice re-previews).
  const shown =
    outcome?.t === "preview" && outcome.content === content && outcome.resourceType === resourceType
      ? outcome
      : undefined;

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    const text = await file.text();
    form.setValue("content", text, { shouldValidate: true, shouldDirty: true });
    form.setValue("filename", file.name);
    run.reset();
    setOutcome(undefined);
    event.target.value = "";
  };

  const submit = (dryRun: boolean) =>
    form.handleSubmit((values) => run.mutate({ ...values, dryRun, choices }));

  // A changed choice is previewed again at once, so the changes listed are what Apply does.
  const choose = (clash: ImportClash, action: ImportClashAction) => {
    const next = new Map(choices);
    next.set(clashKey(clash), action);
    setChosen({ content, resourceType, choices: next });
    void form.handleSubmit((values) => run.mutate({ ...values, dryRun: true, choices: next }))();
  };

  // Pasted config not applied yet is work a stray click would lose.
  const unapplied = content.trim() !== "" && outcome?.t !== "applied";

  return (
    <section aria-labelledby="import-title" className="flex flex-col gap-4">
      <UnsavedChangesGuard dirty={unapplied} />
      <div className="rounded-xl border bg-surface p-5 shadow-xs">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div>
            <h2 id="import-title" className="text-base font-semibold text-fg">
              Import Envoy configuration
            </h2>
            <p className="mt-1 text-fg-muted">
              An object whose name the draft has with other content is imported renamed, unless you
              choose to replace the draft’s or skip it: the preview shows each, with its diff and
              what uses it.
            </p>
          </div>
          <div>
            <input
              ref={fileInput}
              id={fileId}
              type="file"
              accept=".yaml,.yml,.json,application/json,application/yaml,text/yaml,text/plain"
              className="sr-only"
              onChange={(event) => void onFile(event)}
              aria-label="Upload a YAML or JSON file"
            />
            <Button onClick={() => fileInput.current?.click()}>
              <UploadIcon className="size-4" />
              Upload a file…
            </Button>
          </div>
        </div>
        <FormProvider {...form}>
          <form
            noValidate
            aria-label="Import"
            className="mt-4 flex flex-col gap-3"
            onSubmit={submit(true)}
          >
            <TextAreaField<ImportValues>
              name="content"
              label={filename ? `Envoy YAML or JSON (from ${filename})` : "Envoy YAML or JSON"}
              placeholder={example}
              rows={14}
              mono
              disabled={run.isPending}
            />
            <SelectField<ImportValues>
              name="resourceType"
              label="Resource type"
              hint='For lists without "@type", one type to a file (Envoy Gateway’s listeners.yaml, clusters.yaml, …)'
              options={RESOURCE_TYPES.map(({ value, label }) => ({ value, label }))}
              disabled={run.isPending}
              className="max-w-sm"
            />
            <div className="flex flex-wrap items-center justify-end gap-3">
              {preview && (
                <span className="mr-auto text-xs text-fg-subtle">
                  Preview is up to date with the text above.
                </span>
              )}
              <Button type="submit" disabled={run.isPending}>
                {run.isPending && run.variables?.dryRun ? "Previewing…" : "Preview changes"}
              </Button>
              <Button
                variant="primary"
                disabled={run.isPending || !preview || preview.response.changes.length === 0}
                onClick={() => void submit(false)()}
                title={preview ? undefined : "Preview the changes first"}
              >
                {run.isPending && !run.variables?.dryRun ? "Applying…" : "Apply to draft"}
              </Button>
            </div>
          </form>
        </FormProvider>
      </div>

      {run.error && <ImportRefused refusal={run.error} />}
      {shown && (
        <Preview
          response={shown.response}
          choices={choices}
          choose={choose}
          pending={run.isPending}
        />
      )}
      {outcome?.t === "applied" && <Applied response={outcome.response} />}
    </section>
  );
}

function ImportRefused({ refusal }: { refusal: Refusal }) {
  return (
    <div role="alert" className="rounded-xl border border-danger-border bg-surface p-5 shadow-xs">
      <p className="flex items-center gap-2 font-semibold text-fg">
        <AlertTriangleIcon className="size-4 text-danger" />
        {refusal.t === "invalid" ? "This cannot be imported" : refusalTitle(refusal)}
      </p>
      <p className="mt-1 text-fg-muted [overflow-wrap:anywhere]">{refusal.message}</p>
      {refusal.t === "invalid" && refusal.issues.length > 0 && (
        <div className="mt-3">
          <IssueList issues={refusal.issues} />
        </div>
      )}
    </div>
  );
}

function Preview({
  response,
  choices,
  choose,
  pending,
}: {
  response: ImportResponse;
  choices: ClashChoices;
  choose: (clash: ImportClash, action: ImportClashAction) => void;
  pending: boolean;
}) {
  const { errors, warnings, notes } = groupIssues(response.issues);
  const counts = countChanges(response.changes);
  return (
    <section aria-labelledby="preview-title" className="flex flex-col gap-3">
      <div>
        <h2 id="preview-title" className="text-base font-semibold text-fg">
          Preview
        </h2>
        <p className="mt-1 text-fg-muted">
          {counts.total === 0
            ? "Importing this changes nothing: the draft already has this content."
            : `Applying changes ${counts.total} ${counts.total === 1 ? "object" : "objects"} in the draft: ${describeCounts(counts)}.`}
        </p>
      </div>
      {response.clashes.length > 0 && (
        <ImportClashes
          clashes={response.clashes}
          choices={choices}
          choose={choose}
          disabled={pending}
        />
      )}
      {response.issues.length > 0 && (
        <div className="rounded-lg border bg-surface p-4">
          <IssueList issues={[...errors, ...warnings, ...notes]} />
        </div>
      )}
      <ChangeList changes={response.changes} empty={null} />
    </section>
  );
}

function Applied({ response }: { response: ImportResponse }) {
  const n = response.changes.length;
  return (
    <div
      role="status"
      className="flex flex-wrap items-center gap-3 rounded-lg border border-success/30 bg-success/10 px-4 py-3"
    >
      <CheckIcon className="size-4 shrink-0 text-success" />
      <p className="min-w-0 flex-1 text-fg">
        <span className="font-medium">
          {n === 0
            ? "Nothing changed"
            : `${n} ${n === 1 ? "object" : "objects"} imported into the draft`}
        </span>
        <span className="text-fg-muted"> · not live until published.</span>
      </p>
      <Link href={"/changes" as Route} className={buttonClass("primary")}>
        Review and publish on Changes
      </Link>
    </div>
  );
}
