"use client";

import { useQuery } from "@connectrpc/connect-query";
import { zodResolver } from "@hookform/resolvers/zod";
import {
  ConfigService,
  type PublishResponse,
  type SnapshotInfo,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { useMutation } from "@tanstack/react-query";
import { FormProvider, useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { useConfigClient, useInvalidateConfig } from "@/components/config/use-config-client";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { TextField } from "@/components/form/field";
import { classifyRefusal, type Refusal, refusalTitle } from "@/lib/refusal";

const schema = z.object({
  message: z.string().trim().max(2_000, "Keep the message under 2,000 characters."),
});
type RollbackValues = z.input<typeof schema>;

/**
 * The rollback dialog (rollback-button.tsx opens it): says exactly what will happen, takes a
 * message, and rolls back to `target` on top of `latest`. Mounted afresh each time it opens.
 */
export function RollbackDialog({
  target,
  latest,
  open,
  onClose,
  onRolledBack,
}: {
  target: SnapshotInfo;
  latest: SnapshotInfo;
  open: boolean;
  onClose: () => void;
  onRolledBack: (response: PublishResponse) => void;
}) {
  const client = useConfigClient();
  const invalidate = useInvalidateConfig();
  const v = target.version.toString();
  const form = useForm<RollbackValues>({
    resolver: zodResolver(schema),
    defaultValues: { message: "" },
  });

  const rollback = useMutation<PublishResponse, Refusal, z.output<typeof schema>>({
    mutationFn: async (values) => {
      try {
        // The new version's author is the signed-in user (the server takes it from the session).
        return await client.rollback({
          version: target.version,
          message: values.message || `Roll back to version ${v}`,
          baseVersion: latest.version,
          // The new version's changes by name: this page shows them from the History list.
          bodies: { omit: true },
        });
      } catch (error) {
        throw classifyRefusal(error);
      }
    },
    onSuccess: (response) => {
      onClose();
      toast.success(
        `Rolled back: version ${response.snapshot?.version ?? "?"} republishes version ${v}`,
        { description: "Proxies are receiving it now." },
      );
      onRolledBack(response);
      void invalidate();
    },
    onError: (refusal) => {
      if (refusal.t === "stale-base") void invalidate();
    },
  });

  // Rollback replaces the draft (snapshot-store.ts, rollback): say what unpublished work it drops.
  const draft = useQuery(ConfigService.method.diff, {}, { enabled: open });
  const pending = draft.data?.changes.length ?? 0;
  const confirm = form.handleSubmit((values) => rollback.mutate(values as z.output<typeof schema>));

  return (
    <ConfirmDialog
      open={open}
      title={`Roll back to version ${v}?`}
      confirmLabel={rollback.isPending ? "Rolling back…" : `Roll back to version ${v}`}
      danger
      busy={rollback.isPending}
      onConfirm={() => void confirm()}
      onCancel={onClose}
    >
      <p>
        The content of version {v} is published again as a new version, replacing version{" "}
        {latest.version.toString()}. Every connected proxy gets it right away, and the draft becomes
        that content too.
      </p>
      {pending > 0 && (
        <p className="mt-3 rounded-md border border-warning-border bg-warning-soft px-3 py-2 text-fg">
          The draft has {pending} unpublished {pending === 1 ? "change" : "changes"}: rolling back
          discards {pending === 1 ? "it" : "them"}.
        </p>
      )}
      <FormProvider {...form}>
        <form
          noValidate
          aria-label="Rollback"
          className="mt-4 flex flex-col gap-3"
          onSubmit={(event) => {
            event.preventDefault();
            void confirm();
          }}
        >
          <TextField<RollbackValues>
            name="message"
            label="Message"
            placeholder={`Roll back to version ${v}`}
            disabled={rollback.isPending}
          />
        </form>
      </FormProvider>
      {rollback.error && (
        <p role="alert" className="mt-3 text-sm font-medium text-danger">
          {refusalTitle(rollback.error)}
        </p>
      )}
    </ConfirmDialog>
  );
}
