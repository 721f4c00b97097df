"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import type {
  ApproveReviewResponse,
  ReviewRequest,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { useMutation } from "@tanstack/react-query";
import type { Route } from "next";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { FormProvider, useForm } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { useConfigClient, useInvalidateConfig } from "@/components/config/use-config-client";
import { IssueList } from "@/components/diff/issue-list";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { TextAreaField } from "@/components/form/field";
import { RouteTestFailures, RouteTestOverride } from "@/components/routing/route-test-failures";
import { Button } from "@/components/ui/button";
import { CheckIcon } from "@/components/ui/icons";
import { messageOf } from "@/lib/access-errors";
import { classifyRefusal, type Refusal, refusalTitle } from "@/lib/refusal";

/*
 * What can be done to an open review request: an admin approves (publishes the requested draft)
 * or rejects it with a comment; the requester withdraws it. The server checks each again
 * (access-rules.ts, review-handlers.ts); its refusal is shown where the action was asked.
 */

const approveSchema = z.object({
  comment: z.string().trim().max(2_000, "Keep the comment under 2,000 characters."),
});
type ApproveValues = z.input<typeof approveSchema>;

const rejectSchema = z.object({
  comment: z
    .string()
    .trim()
    .min(1, "Say why: the requester sees this comment.")
    .max(2_000, "Keep the comment under 2,000 characters."),
});
type RejectValues = z.input<typeof rejectSchema>;

/**
 * The refusal of a decision, inside its dialog. An approval that breaks route tests lists the
 * failing cases and offers `override` (only admins decide reviews) to approve with a reason; one
 * refused for predicted rejections (clients would NACK the version) lists them and offers
 * `accept` to approve with accept_warnings.
 */
function RefusalAlert({
  refusal,
  override,
  accept,
}: {
  refusal: Refusal;
  override?: { readonly busy: boolean; readonly send: (reason: string) => void } | undefined;
  accept?: { readonly busy: boolean; readonly send: () => void } | undefined;
}) {
  return (
    <div role="alert" className="mt-3 text-sm font-medium text-danger [overflow-wrap:anywhere]">
      <p>{refusalTitle(refusal)}</p>
      {refusal.t === "invalid" && refusal.issues.length > 0 && (
        <div className="mt-2 font-normal">
          <IssueList issues={refusal.issues} compact />
        </div>
      )}
      {refusal.t === "predicted-rejections" && (
        <div className="mt-2 font-normal">
          <IssueList issues={refusal.issues} compact />
          {accept && (
            <Button
              className="mt-2.5"
              variant="danger"
              disabled={accept.busy}
              onClick={accept.send}
            >
              Accept the warnings and approve
            </Button>
          )}
        </div>
      )}
      {refusal.t === "route-tests" && (
        <div className="font-normal">
          <RouteTestFailures failures={refusal.failures} />
          {override && (
            <RouteTestOverride
              action="Approve anyway"
              busy={override.busy}
              onOverride={override.send}
            />
          )}
        </div>
      )}
    </div>
  );
}

/**
 * Approve, after a confirmation that says what goes out. Disabled, with `blocked` as the reason
 * beside it (an out-of-date request), when the server would refuse.
 */
export function ApproveButton({
  request,
  blocked,
  blockedId,
}: {
  request: ReviewRequest;
  blocked: string | undefined;
  /** The element saying why the button is disabled, for aria-describedby. */
  blockedId: string | undefined;
}) {
  const [open, setOpen] = useState(false);
  const client = useConfigClient();
  const invalidate = useInvalidateConfig();
  const router = useRouter();
  const form = useForm<ApproveValues>({
    resolver: zodResolver(approveSchema),
    defaultValues: { comment: "" },
  });
  const approve = useMutation<
    ApproveReviewResponse,
    Refusal,
    z.output<typeof approveSchema> & {
      readonly routeTestOverride?: string;
      readonly acceptWarnings?: boolean;
    }
  >({
    mutationFn: async (values) => {
      try {
        return await client.approveReview({
          id: request.id,
          comment: values.comment,
          routeTestOverride: values.routeTestOverride ?? "",
          acceptWarnings: values.acceptWarnings ?? false,
        });
      } catch (error) {
        throw classifyRefusal(error);
      }
    },
    onSuccess: (response) => {
      setOpen(false);
      const version = response.publish?.snapshot?.version.toString() ?? "?";
      toast.success(`Published version ${version}`, {
        description: `Review #${request.id} approved: ${request.requester}’s change is going out to proxies now.`,
        action: {
          label: "View in History",
          onClick: () => router.push(`/history?version=${version}` as Route),
        },
      });
      void invalidate();
    },
    // Out of date, or decided by another admin meanwhile: the list shows it once reloaded.
    onError: () => void invalidate(),
  });
  const confirm = form.handleSubmit((values) =>
    approve.mutate(values as z.output<typeof approveSchema>),
  );
  const approveAnyway = (reason: string) =>
    void form.handleSubmit((values) =>
      approve.mutate({ ...(values as z.output<typeof approveSchema>), routeTestOverride: reason }),
    )();
  const approveAccepting = () =>
    void form.handleSubmit((values) =>
      approve.mutate({ ...(values as z.output<typeof approveSchema>), acceptWarnings: true }),
    )();
  const base =
    request.baseVersion === 0n
      ? "as the first version"
      : `on top of version ${request.baseVersion}`;
  return (
    <>
      <Button
        variant="primary"
        disabled={blocked !== undefined}
        aria-describedby={blocked === undefined ? undefined : blockedId}
        onClick={() => {
          approve.reset();
          form.reset({ comment: "" });
          setOpen(true);
        }}
      >
        <CheckIcon className="size-4" />
        Approve
      </Button>
      <ConfirmDialog
        open={open}
        title={`Approve and publish review #${request.id}?`}
        confirmLabel={approve.isPending ? "Publishing…" : "Approve and publish"}
        busy={approve.isPending}
        onConfirm={() => void confirm()}
        onCancel={() => setOpen(false)}
      >
        <p>
          {request.requester}’s draft is published {base}, exactly as requested: every connected
          proxy gets it right away. The version is {request.requester}’s; its message says you
          approved it.
        </p>
        <FormProvider {...form}>
          <form
            noValidate
            aria-label={`Approve review #${request.id}`}
            className="mt-4"
            onSubmit={(event) => {
              event.preventDefault();
              void confirm();
            }}
          >
            <TextAreaField<ApproveValues>
              name="comment"
              label="Comment (optional)"
              rows={2}
              disabled={approve.isPending}
            />
          </form>
        </FormProvider>
        {approve.error && (
          <RefusalAlert
            refusal={approve.error}
            override={{ busy: approve.isPending, send: approveAnyway }}
            accept={{ busy: approve.isPending, send: approveAccepting }}
          />
        )}
      </ConfirmDialog>
    </>
  );
}

/** Reject, in a dialog that asks why: the requester reads the comment. */
export function RejectButton({ request }: { request: ReviewRequest }) {
  const [open, setOpen] = useState(false);
  const client = useConfigClient();
  const invalidate = useInvalidateConfig();
  const form = useForm<RejectValues>({
    resolver: zodResolver(rejectSchema),
    defaultValues: { comment: "" },
  });
  const reject = useMutation<ReviewRequest, Refusal, z.output<typeof rejectSchema>>({
    mutationFn: async (values) => {
      try {
        return await client.rejectReview({ id: request.id, comment: values.comment });
      } catch (error) {
        throw classifyRefusal(error);
      }
    },
    onSuccess: () => {
      setOpen(false);
      toast.success(`Review #${request.id} rejected`, {
        description: `${request.requester} sees your comment; the draft is left as it is.`,
      });
      void invalidate();
    },
    onError: () => void invalidate(),
  });
  const confirm = form.handleSubmit((values) =>
    reject.mutate(values as z.output<typeof rejectSchema>),
  );
  return (
    <>
      <Button
        onClick={() => {
          reject.reset();
          form.reset({ comment: "" });
          setOpen(true);
        }}
      >
        Reject
      </Button>
      <ConfirmDialog
        open={open}
        title={`Reject review #${request.id}?`}
        confirmLabel={reject.isPending ? "Rejecting…" : "Reject request"}
        danger
        busy={reject.isPending}
        onConfirm={() => void confirm()}
        onCancel={() => setOpen(false)}
      >
        <p>
          Nothing is published and the draft stays as it is. {request.requester} sees your comment
          and can change the draft, then ask again.
        </p>
        <FormProvider {...form}>
          <form
            noValidate
            aria-label={`Reject review #${request.id}`}
            className="mt-4"
            onSubmit={(event) => {
              event.preventDefault();
              void confirm();
            }}
          >
            <TextAreaField<RejectValues>
              name="comment"
              label="Comment"
              placeholder="What to change before asking again"
              rows={3}
              disabled={reject.isPending}
            />
          </form>
        </FormProvider>
        {reject.error && <RefusalAlert refusal={reject.error} />}
      </ConfirmDialog>
    </>
  );
}

/** Withdraw, for the requester: the draft stays; they may ask again later. */
export function WithdrawButton({ request }: { request: ReviewRequest }) {
  const client = useConfigClient();
  const invalidate = useInvalidateConfig();
  const withdraw = useMutation({
    mutationFn: () => client.withdrawReview({ id: request.id }),
    onSuccess: () => {
      toast.success(`Review request #${request.id} withdrawn`, {
        description: "Your draft is left as it is: request a review again when it is ready.",
      });
      void invalidate();
    },
    onError: (error) => {
      toast.error(`Couldn’t withdraw review request #${request.id}`, {
        description: messageOf(error),
      });
      void invalidate();
    },
  });
  return (
    <Button onClick={() => withdraw.mutate()} disabled={withdraw.isPending}>
      {withdraw.isPending ? "Withdrawing…" : "Withdraw"}
    </Button>
  );
}
