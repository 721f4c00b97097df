"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import type { DiffResponse, PublishResponse } from "@switchyard/proto/switchyard/v1/config_pb";
import { useMutation } from "@tanstack/react-query";
import { FormProvider, useForm, useWatch } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { useCaller } from "@/components/access/use-caller";
import { useConfigClient, useInvalidateConfig } from "@/components/config/use-config-client";
import { IssueList } from "@/components/diff/issue-list";
import { TextAreaField } from "@/components/form/field";
import { UnsavedChangesGuard } from "@/components/form/unsaved-changes-guard";
import { Button } from "@/components/ui/button";
import { AlertTriangleIcon, RefreshIcon } from "@/components/ui/icons";
import { classifyRefusal, type Refusal, refusalTitle } from "@/lib/refusal";

const schema = z.object({
  message: z
    .string()
    .trim()
    .min(1, "Say what changed and why: the message is what History shows for this version.")
    .max(2_000, "Keep the message under 2,000 characters."),
});
type PublishValues = z.input<typeof schema>;

/**
 * Publishes the reviewed draft. The request carries the version and draft revision of the diff the
 * user looked at, so the server refuses to publish a draft that changed since, or on top of a
 * version published meanwhile (config.proto, PublishRequest); the refusal says to review again.
 */
export function PublishForm({
  reviewed,
  blocked,
  onPublished,
  onReviewAgain,
}: {
  reviewed: DiffResponse;
  /** Why publishing is not possible now (validation errors, nothing to publish), or undefined. */
  blocked: string | undefined;
  onPublished: (response: PublishResponse) => void;
  onReviewAgain: () => void;
}) {
  const client = useConfigClient();
  const caller = useCaller();
  const invalidate = useInvalidateConfig();
  // The version's author is the signed-in user: the server takes it from the session.
  const form = useForm<PublishValues>({
    resolver: zodResolver(schema),
    defaultValues: { message: "" },
  });

  const publish = useMutation<PublishResponse, Refusal, z.output<typeof schema>>({
    mutationFn: async (values) => {
      try {
        return await client.publish({
          message: values.message,
          baseVersion: reviewed.fromVersion,
          draftRevision: reviewed.draftRevision,
        });
      } catch (error) {
        throw classifyRefusal(error);
      }
    },
    onSuccess: (response) => {
      form.reset({ message: "" });
      const version = response.snapshot?.version.toString() ?? "?";
      toast.success(`Published version ${version}`, {
        description: "Proxies are receiving it now: follow the rollout below.",
      });
      onPublished(response);
      void invalidate();
    },
    onError: (refusal) => {
      toast.error(refusalTitle(refusal));
      // Whatever the reason, what the page shows may be out of date.
      if (refusal.t !== "other") void invalidate();
    },
  });

  const message = useWatch({ control: form.control, name: "message" });
  const refusal = publish.error;
  const busy = publish.isPending;
  if (caller.role === "viewer")
    return (
      <p role="note" className="text-sm text-fg-muted">
        You have read-only access ({caller.username}, viewer): an admin or a team member publishes.
      </p>
    );
  return (
    <FormProvider {...form}>
      <UnsavedChangesGuard dirty={message.trim() !== ""} />
      <form
        noValidate
        aria-label="Publish"
        onSubmit={form.handleSubmit((values) => publish.mutate(values as z.output<typeof schema>))}
        className="flex flex-col gap-3"
      >
        <TextAreaField<PublishValues>
          name="message"
          label="Message"
          placeholder="e.g. Move 10% of checkout traffic to the green backend"
          rows={3}
          disabled={busy}
        />
        {refusal && (
          <div
            role="alert"
            className="rounded-lg border border-danger-border bg-danger-soft px-3 py-2.5 text-fg"
          >
            <p className="flex gap-2 font-medium">
              <AlertTriangleIcon className="mt-0.5 size-4 shrink-0 text-danger" />
              {refusalTitle(refusal)}
            </p>
            {refusal.t === "invalid" && refusal.issues.length > 0 && (
              <div className="mt-2">
                <IssueList issues={refusal.issues} compact />
              </div>
            )}
            {(refusal.t === "stale-base" || refusal.t === "draft-changed") && (
              <Button
                className="mt-2.5"
                onClick={() => {
                  publish.reset();
                  onReviewAgain();
                }}
              >
                <RefreshIcon className="size-4" />
                Review the changes again
              </Button>
            )}
          </div>
        )}
        <div className="flex items-center justify-between gap-3">
          <p className="text-xs text-fg-subtle">
            {blocked ??
              (reviewed.fromVersion === 0n ? (
                "Publishes the first version."
              ) : (
                <>
                  Publishes on top of version{" "}
                  <span className="tabular-nums">{reviewed.fromVersion.toString()}</span>.
                </>
              ))}
          </p>
          <Button type="submit" variant="primary" disabled={busy || blocked !== undefined}>
            {busy ? "Publishing…" : "Publish"}
          </Button>
        </div>
      </form>
    </FormProvider>
  );
}
