"use client";

import { useQuery } from "@connectrpc/connect-query";
import { zodResolver } from "@hookform/resolvers/zod";
import {
  ConfigService,
  type PublishResponse,
  type SnapshotInfo,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { FormProvider, useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { useCaller } from "@/components/access/use-caller";
import { useConfigClient, useInvalidateConfig } from "@/components/config/use-config-client";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { TextField } from "@/components/form/field";
import { Button } from "@/components/ui/button";
import { UndoIcon } from "@/components/ui/icons";
import { classifyRefusal, type Refusal, refusalTitle } from "@/lib/refusal";

const schema = z.object({
  message: z.string().trim().max(2_000, "Keep the message under 2,000 characters."),
});
type RollbackValues = z.input<typeof schema>;

/**
 * Rolls back to `target`: its content is published again as a new version, on top of `latest`
 * (the server refuses if another version was published meanwhile); the draft becomes that content
 * too. Asks first, in a dialog that
 * says exactly what will happen.
 */
export function RollbackButton({
  target,
  latest,
  onRolledBack,
}: {
  target: SnapshotInfo;
  latest: SnapshotInfo;
  onRolledBack: (response: PublishResponse) => void;
}) {
  const [open, setOpen] = useState(false);
  const client = useConfigClient();
  const caller = useCaller();
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
        });
      } catch (error) {
        throw classifyRefusal(error);
      }
    },
    onSuccess: (response) => {
      setOpen(false);
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

  const openDialog = () => {
    rollback.reset();
    form.reset({ message: "" });
    setOpen(true);
  };
  const confirm = form.handleSubmit((values) => rollback.mutate(values as z.output<typeof schema>));

  // Viewers cannot roll back (the server refuses it too).
  if (caller.role === "viewer") return null;
  // Nor can a member whose team requires review (authorize.ts): an admin rolls back for them.
  if (caller.role === "member" && caller.team?.requireReview === true)
    return (
      <p className="max-w-56 text-right text-xs text-fg-subtle">
        Team {caller.team.name} requires an admin’s review: ask an admin to roll back to this
        version.
      </p>
    );
  return (
    <>
      <Button onClick={openDialog}>
        <UndoIcon className="size-4" />
        Roll back to this version
      </Button>
      <ConfirmDialog
        open={open}
        title={`Roll back to version ${v}?`}
        confirmLabel={rollback.isPending ? "Rolling back…" : `Roll back to version ${v}`}
        danger
        busy={rollback.isPending}
        onConfirm={() => void confirm()}
        onCancel={() => setOpen(false)}
      >
        <p>
          The content of version {v} is published again as a new version, replacing version{" "}
          {latest.version.toString()}. Every connected proxy gets it right away, and the draft
          becomes that content too.
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
    </>
  );
}
