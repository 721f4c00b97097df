"use client";

import type { DiffResponse } from "@switchyard/proto/switchyard/v1/config_pb";
import { useState } from "react";
import { toast } from "sonner";
import { useCaller } from "@/components/access/use-caller";
import { useConfigClient } from "@/components/config/use-config-client";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { Button } from "@/components/ui/button";
import { messageOf } from "@/lib/access-errors";

/**
 * "Discard changes…": after a confirmation, returns the draft to the latest published version
 * (ConfigService.DiscardDraft), undoing every change the review lists. Nothing is published; the
 * server audits each object undone and refuses, saying which, a change the caller may not edit.
 */
export function DiscardButton({
  reviewed,
  onDiscarded,
}: {
  reviewed: DiffResponse;
  onDiscarded: () => void;
}) {
  const client = useConfigClient();
  const caller = useCaller();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  if (caller.role === "viewer" || reviewed.changes.length === 0) return null;
  const count = reviewed.changes.length;
  const version = reviewed.fromVersion;
  return (
    <>
      <Button onClick={() => setOpen(true)}>Discard changes…</Button>
      <ConfirmDialog
        open={open}
        title={`Discard ${count === 1 ? "the unpublished change" : `all ${count} unpublished changes`}?`}
        confirmLabel="Discard changes"
        danger
        busy={busy}
        onCancel={() => setOpen(false)}
        onConfirm={async () => {
          setBusy(true);
          try {
            const result = await client.discardDraft({});
            toast.success(
              `Discarded ${result.changes.length} ${result.changes.length === 1 ? "change" : "changes"}`,
              {
                description:
                  version === 0n
                    ? "The draft is empty again."
                    : `The draft is version ${version.toString()} again.`,
              },
            );
            onDiscarded();
          } catch (error) {
            toast.error("Couldn’t discard the changes", { description: messageOf(error) });
          } finally {
            setBusy(false);
            setOpen(false);
          }
        }}
      >
        {version === 0n
          ? "Every object of the draft is deleted: nothing was published yet."
          : `The draft returns to version ${version.toString()}: every change listed below is undone, for everyone editing it.`}{" "}
        Nothing is published.
      </ConfirmDialog>
    </>
  );
}
