"use client";

import type {
  DiffResponse,
  Issue,
  PublishResponse,
} from "@switchyard/proto/switchyard/v1/config_pb";
import { toast } from "sonner";
import { useInvalidateAccess } from "@/components/access/use-access-client";
import { useCaller } from "@/components/access/use-caller";
import { useConfigClient } from "@/components/config/use-config-client";
import { DraftMessageForm } from "./draft-message-form";
import { useRolloutChoice } from "./rollout-choice";

/**
 * Publishes the reviewed draft (DraftMessageForm), to every node at once or as a rollout
 * (rollout-choice.tsx). The version's author is the signed-in user: the server takes it from the
 * session. Refused because a rollout runs in a group it changes, it can abort that rollout. With
 * predicted rejections new to the latest version (`rejections`), it asks before publishing, and
 * publishes with accept_warnings once confirmed.
 */
export function PublishForm({
  reviewed,
  blocked,
  rejections,
  onPublished,
  onReviewAgain,
}: {
  reviewed: DiffResponse;
  /** Why publishing is not possible now (validation errors, nothing to publish), or undefined. */
  blocked: string | undefined;
  /** The validation's predicted rejections the latest version lacks (newRejections). */
  rejections: readonly Issue[];
  onPublished: (response: PublishResponse) => void;
  onReviewAgain: () => void;
}) {
  const client = useConfigClient();
  const caller = useCaller();
  const invalidateAccess = useInvalidateAccess();
  const choice = useRolloutChoice(blocked !== undefined);
  if (caller.role === "viewer")
    return (
      <p role="note" className="text-sm text-fg-muted">
        You have read-only access ({caller.username}, viewer): an admin or a team member publishes.
      </p>
    );
  return (
    <DraftMessageForm
      reviewed={reviewed}
      blocked={blocked ?? choice.problem}
      fields={choice.fields}
      action="Publish"
      rejections={rejections}
      busyLabel="Publishing…"
      then="publish"
      placeholder="e.g. Move 10% of checkout traffic to the green backend"
      footnote={
        reviewed.fromVersion === 0n ? (
          "Publishes the first version."
        ) : (
          <>
            Publishes on top of version{" "}
            <span className="tabular-nums">{reviewed.fromVersion.toString()}</span>.
          </>
        )
      }
      // By name only: the diff was reviewed above, and the answer is shown as a banner.
      send={(request) =>
        client.publish({
          ...request,
          ...(choice.request === undefined ? {} : { rollout: choice.request }),
          bodies: { omit: true },
        })
      }
      onSent={(response) => {
        const version = response.snapshot?.version.toString() ?? "?";
        toast.success(`Published version ${version}`, {
          description:
            response.rolloutIds.length > 0
              ? `It goes out in waves: rollout ${response.rolloutIds.join(", ")}.`
              : "Proxies are receiving it now: follow the rollout below.",
        });
        onPublished(response);
      }}
      onRefused={(refusal) => {
        // An admin turned on review for the caller's team since WhoAmI answered: asking again
        // turns this form into Request review.
        if (refusal.t === "review-required") void invalidateAccess();
      }}
      onReviewAgain={onReviewAgain}
      // Only an admin may publish past failing route tests (route-test-gate.ts).
      override={caller.role === "admin" ? "Publish anyway" : undefined}
      abortRollout="Abort it and publish"
    />
  );
}
