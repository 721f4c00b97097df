"use client";

import { useQuery } from "@connectrpc/connect-query";
import { ConfigFormat, ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { toast } from "sonner";
import { useConfigClient } from "@/components/config/use-config-client";
import { inputClass } from "@/components/form/field";
import { Button } from "@/components/ui/button";
import { DownloadIcon } from "@/components/ui/icons";

/** Hands `content` to the browser as a file download. */
function download(content: string, filename: string, type: string) {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked on the next task: the download has taken the blob by then.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/**
 * Exports the draft or a published version as Envoy v3 YAML or JSON (Export), the same document
 * `switchyard export` prints, as a download.
 */
export function ExportPanel() {
  const client = useConfigClient();
  const snapshots = useQuery(ConfigService.method.listSnapshots, { limit: 200 });
  const [source, setSource] = useState("0");
  const [format, setFormat] = useState<"yaml" | "json">("yaml");
  const sourceId = useId();
  const formatId = useId();

  const run = useMutation({
    mutationFn: async () => {
      const version = BigInt(source);
      const response = await client.export({
        version,
        format: format === "json" ? ConfigFormat.JSON : ConfigFormat.YAML,
      });
      const name = version === 0n ? "draft" : `v${version}`;
      download(
        response.content,
        `switchyard-${name}.${format}`,
        format === "json" ? "application/json" : "application/yaml",
      );
    },
    onError: (error) => toast.error(`Export failed: ${error.message}`),
  });

  const versions = snapshots.data?.snapshots ?? [];
  return (
    <section aria-labelledby="export-title" className="rounded-xl border bg-surface p-5 shadow-xs">
      <h2 id="export-title" className="text-base font-semibold text-fg">
        Export
      </h2>
      <p className="mt-1 text-fg-muted">
        Download the configuration as Envoy v3 resources, to keep in Git or load elsewhere.
      </p>
      <div className="mt-4 flex flex-wrap items-end gap-3">
        <div className="flex min-w-56 flex-col gap-1.5">
          <label htmlFor={sourceId} className="text-[13px] font-medium text-fg">
            What
          </label>
          <select
            id={sourceId}
            value={source}
            onChange={(event) => setSource(event.target.value)}
            className={inputClass}
          >
            <option value="0">The draft (unpublished edits included)</option>
            {versions.map((s, i) => (
              <option key={s.version.toString()} value={s.version.toString()}>
                Version {s.version.toString()}
                {i === 0 ? " (live)" : ""}
                {s.message ? ` · ${s.message.slice(0, 40)}` : ""}
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1.5">
          <label htmlFor={formatId} className="text-[13px] font-medium text-fg">
            Format
          </label>
          <select
            id={formatId}
            value={format}
            onChange={(event) => setFormat(event.target.value === "json" ? "json" : "yaml")}
            className={inputClass}
          >
            <option value="yaml">YAML</option>
            <option value="json">JSON</option>
          </select>
        </div>
        <Button variant="primary" onClick={() => run.mutate()} disabled={run.isPending}>
          <DownloadIcon className="size-4" />
          {run.isPending ? "Exporting…" : "Download"}
        </Button>
      </div>
    </section>
  );
}
