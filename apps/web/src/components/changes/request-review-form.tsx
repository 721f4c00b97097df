"use client";

import type { DiffResponse } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { useRouter } from "next/navigation";
import { toast } from "sonner";
import { useConfigClient } from "@/components/config/use-config-client";
import { reviewHref } from "@/lib/review-filter";
import { DraftMessageForm } from "./draft-message-form";

/**
 * For a member whose team requires review: asks an admin to publish the reviewed draft
 * (RequestReview). The request pins exactly the draft revision and base version of the diff on
 * the page; an admin's approval publishes that, as a version authored by the member.
 */
export function RequestReviewForm({
  reviewed,
  blocked,
  team,
  replaces,
  onReviewAgain,
}: {
  reviewed: DiffResponse;
  blocked: string | undefined;
  /** The caller's team, which requires review. */
  team: string;
  /** The caller's open request, which a new one replaces. */
  replaces: bigint | undefined;
  onReviewAgain: () => void;
}) {
  const client = useConfigClient();
  const router = useRouter();
  const base =
    reviewed.fromVersion === 0n
      ? "as the first version"
      : `on top of version ${reviewed.fromVersion}`;
  return (
    <DraftMessageForm
      reviewed={reviewed}
      blocked={blocked}
      action="Request review"
      busyLabel="Requesting…"
      then="request a review"
      placeholder="e.g. Move 10% of checkout traffic to the green backend"
      footnote={
        <>
          Team {team} requires an admin’s review: an approval publishes this draft {base}, as your
          version.
          {replaces !== undefined && ` It replaces your open request #${replaces}.`}
        </>
      }
      send={({ message, baseVersion, draftRevision }) =>
        client.requestReview({ message, baseVersion, draftRevision })
      }
      onSent={(request) => {
        const href = reviewHref(request.id) as Route;
        toast.success(`Review requested (#${request.id})`, {
          description: "An admin approves it to publish your draft, or rejects it with a comment.",
          action: { label: "View request", onClick: () => router.push(href) },
        });
      }}
      onReviewAgain={onReviewAgain}
    />
  );
}
