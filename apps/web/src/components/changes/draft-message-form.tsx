"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import type { DiffResponse, Issue } from "@switchyard/proto/switchyard/v1/config_pb";
import { useMutation } from "@tanstack/react-query";
import type { Route } from "next";
import { type ReactNode, useState } from "react";
import { FormProvider, useForm, useWatch } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { useInvalidateConfig } from "@/components/config/use-config-client";
import { IssueList } from "@/components/diff/issue-list";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { TextAreaField } from "@/components/form/field";
import { UnsavedChangesGuard } from "@/components/form/unsaved-changes-guard";
import {
  RouteTestFailures,
  RouteTestOverride,
  RouteTestOverrideNote,
} from "@/components/routing/route-test-failures";
import { Button } from "@/components/ui/button";
import { AlertTriangleIcon, RefreshIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { rejectedByText } from "@/lib/predicted-rejections";
import { classifyRefusal, type Refusal, refusalTitle } from "@/lib/refusal";
import { rolloutHref } from "@/lib/rollouts";

const schema = z.object({
  message: z
    .string()
    .trim()
    .min(1, "Say what changed and why: the message is what History shows for this version.")
    .max(2_000, "Keep the message under 2,000 characters."),
});
type MessageValues = z.input<typeof schema>;

/**
 * A message, then one call about the reviewed draft: Publish, or RequestReview for a team that
 * requires review. `send` passes the version and draft revision of the diff the user looked at,
 * so the server refuses a draft that changed since, or a base that is no longer the latest
 * (config.proto, PublishRequest); the refusal says to review again, with a button for it. A
 * change that breaks stored route tests is refused listing each failing case; when `override`
 * is given (an admin publishing), a reason sends the same call again with route_test_override.
 * A publish refused because a rollout runs in a group it changes links to the rollout and, when
 * `abortRollout` is given, sends the same call again with abort_rollout. When `rejections` (the
 * validation's new predicted rejections: some node group's clients would NACK the version) is
 * not empty, the button first asks in a dialog listing each, and sends with accept_warnings once
 * confirmed; a refusal for predicted rejections (the validation shown was older) lists them with
 * a button that sends again accepting them. `fields` sit under the message (how the version goes
 * out).
 */
export function DraftMessageForm<R>({
  reviewed,
  blocked,
  action,
  busyLabel,
  then,
  placeholder,
  footnote,
  send,
  onSent,
  onRefused,
  onReviewAgain,
  override,
  abortRollout,
  rejections = [],
  fields,
}: {
  reviewed: DiffResponse;
  /** Why the call is not possible now (validation errors, nothing to publish), or undefined. */
  blocked: string | undefined;
  /** The form's name and its button: "Publish", "Request review". */
  action: string;
  busyLabel: string;
  /** What the reader does after reviewing again, in a refusal's title: "publish". */
  then: string;
  placeholder: string;
  /** Beside the button, when not blocked: what the call will do. */
  footnote: ReactNode;
  send: (request: {
    message: string;
    baseVersion: bigint;
    draftRevision: string;
    /** An admin's reason to publish past failing route tests; "" for none. */
    routeTestOverride: string;
    /** End the rollouts under way in the groups the version changes (abort_rollout). */
    abortRollout: boolean;
    /** Publish past predicted rejections (accept_warnings), once the user confirmed. */
    acceptWarnings: boolean;
  }) => Promise<R>;
  onSent: (response: R) => void;
  onRefused?: (refusal: Refusal) => void;
  onReviewAgain: () => void;
  /** The button that sends again past failing route tests ("Publish anyway"); unset: no override. */
  override?: string | undefined;
  /** The button that sends again aborting a running rollout ("Abort it and publish"). */
  abortRollout?: string | undefined;
  /** Warnings some node group's clients would reject, new to the latest version: confirmed first. */
  rejections?: readonly Issue[];
  fields?: ReactNode;
}) {
  const invalidate = useInvalidateConfig();
  const form = useForm<MessageValues>({
    resolver: zodResolver(schema),
    defaultValues: { message: "" },
  });

  const mutation = useMutation<
    R,
    Refusal,
    z.output<typeof schema> & {
      readonly routeTestOverride?: string;
      readonly abortRollout?: boolean;
      readonly acceptWarnings?: boolean;
    }
  >({
    mutationFn: async (values) => {
      try {
        return await send({
          message: values.message,
          baseVersion: reviewed.fromVersion,
          draftRevision: reviewed.draftRevision,
          routeTestOverride: values.routeTestOverride ?? "",
          abortRollout: values.abortRollout ?? false,
          acceptWarnings: values.acceptWarnings ?? false,
        });
      } catch (error) {
        throw classifyRefusal(error);
      }
    },
    onSuccess: (response) => {
      form.reset({ message: "" });
      onSent(response);
      void invalidate();
    },
    onError: (refusal) => {
      toast.error(refusalTitle(refusal, then));
      onRefused?.(refusal);
      // Whatever the reason, what the page shows may be out of date (failing route tests change
      // nothing: the draft and the versions are as reviewed).
      if (refusal.t !== "other" && refusal.t !== "route-tests") void invalidate();
    },
  });

  const message = useWatch({ control: form.control, name: "message" });
  const refusal = mutation.error;
  const busy = mutation.isPending;
  const sendAnyway = (reason: string) =>
    void form.handleSubmit((values) =>
      mutation.mutate({ ...(values as z.output<typeof schema>), routeTestOverride: reason }),
    )();
  const sendAborting = () =>
    void form.handleSubmit((values) =>
      mutation.mutate({ ...(values as z.output<typeof schema>), abortRollout: true }),
    )();
  // The message checked, the dialog asks about the predicted rejections before sending.
  const [confirming, setConfirming] = useState(false);
  const sendAccepting = () => {
    setConfirming(false);
    void form.handleSubmit((values) =>
      mutation.mutate({ ...(values as z.output<typeof schema>), acceptWarnings: true }),
    )();
  };
  return (
    <FormProvider {...form}>
      <UnsavedChangesGuard dirty={message.trim() !== ""} />
      <form
        noValidate
        aria-label={action}
        onSubmit={form.handleSubmit((values) =>
          rejections.length > 0
            ? setConfirming(true)
            : mutation.mutate(values as z.output<typeof schema>),
        )}
        className="flex flex-col gap-3"
      >
        <TextAreaField<MessageValues>
          name="message"
          label="Message"
          placeholder={placeholder}
          rows={3}
          disabled={busy}
        />
        {fields}
        {refusal && (
          <div
            role="alert"
            className="rounded-lg border border-danger-border bg-danger-soft px-3 py-2.5 text-fg"
          >
            <p className="flex gap-2 font-medium">
              <AlertTriangleIcon className="mt-0.5 size-4 shrink-0 text-danger" />
              {refusalTitle(refusal, then)}
            </p>
            {refusal.t === "invalid" && refusal.issues.length > 0 && (
              <div className="mt-2">
                <IssueList issues={refusal.issues} compact />
              </div>
            )}
            {refusal.t === "predicted-rejections" && (
              <>
                <div className="mt-2">
                  <IssueList issues={refusal.issues} compact />
                </div>
                <Button className="mt-2.5" variant="danger" disabled={busy} onClick={sendAccepting}>
                  Accept the warnings and {action.toLowerCase()}
                </Button>
              </>
            )}
            {refusal.t === "route-tests" && <RouteTestFailures failures={refusal.failures} />}
            {refusal.t === "route-tests" &&
              (override === undefined ? (
                <RouteTestOverrideNote />
              ) : (
                <RouteTestOverride action={override} busy={busy} onOverride={sendAnyway} />
              ))}
            {refusal.t === "rollout-running" && (
              <>
                <p className="mt-1 text-xs text-fg-muted [overflow-wrap:anywhere]">
                  {refusal.message}
                </p>
                <div className="mt-2.5 flex flex-wrap items-center gap-3">
                  {abortRollout !== undefined && (
                    <Button variant="danger" disabled={busy} onClick={sendAborting}>
                      {abortRollout}
                    </Button>
                  )}
                  <Link
                    href={rolloutHref(refusal.rolloutId) as Route}
                    className="text-sm font-medium text-accent hover:underline"
                  >
                    See rollout {refusal.rolloutId.toString()}
                  </Link>
                </div>
              </>
            )}
            {(refusal.t === "stale-base" || refusal.t === "draft-changed") && (
              <Button
                className="mt-2.5"
                onClick={() => {
                  mutation.reset();
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
          <p className="text-xs text-fg-subtle">{blocked ?? footnote}</p>
          <Button
            type="submit"
            variant="primary"
            className="shrink-0 whitespace-nowrap"
            disabled={busy || blocked !== undefined}
          >
            {busy ? busyLabel : action}
          </Button>
        </div>
      </form>
      <ConfirmDialog
        open={confirming}
        title={`Clients will reject this version`}
        confirmLabel={`${action} anyway`}
        danger
        busy={busy}
        onConfirm={sendAccepting}
        onCancel={() => setConfirming(false)}
      >
        <p>
          Validation predicts that these clients will reject (NACK) what they are sent, and keep
          their last good version:
        </p>
        <ul aria-label="Predicted rejections" className="mt-2 flex flex-col gap-2">
          {rejections.map((issue, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the list is replaced whole, never reordered
            <li key={i} className="rounded-lg border px-3 py-2 text-sm">
              <p className="font-medium text-fg">{rejectedByText(issue)}</p>
              <p className="mt-0.5 [overflow-wrap:anywhere]">{issue.message}</p>
            </li>
          ))}
        </ul>
      </ConfirmDialog>
    </FormProvider>
  );
}
