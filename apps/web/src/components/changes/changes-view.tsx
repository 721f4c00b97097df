"use client";

import { useQuery } from "@connectrpc/connect-query";
import {
  ConfigService,
  type PublishResponse,
  type ValidateResponse,
} from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { type ReactNode, useState } from "react";
import { useCaller } from "@/components/access/use-caller";
import { ConvergencePanel } from "@/components/convergence/convergence-view";
import { ChangeList } from "@/components/diff/change-list";
import { IssueList } from "@/components/diff/issue-list";
import { useOwnReviews } from "@/components/reviews/use-own-reviews";
import { Button, buttonClass } from "@/components/ui/button";
import { AlertTriangleIcon, CheckIcon, DiffIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { EmptyState, LoadError, LoadingBlock, PageHeader } from "@/components/ui/page-states";
import { RefreshButton } from "@/components/ui/refresh-button";
import { RelativeTime } from "@/components/ui/relative-time";
import { countChanges, describeCounts, groupIssues } from "@/lib/object-changes";
import { newRejections } from "@/lib/predicted-rejections";
import { rolloutHref } from "@/lib/rollouts";
import { DiscardButton } from "./discard-button";
import { OwnReview } from "./own-review";
import { PublishForm } from "./publish-form";
import { RequestReviewForm } from "./request-review-form";

/**
 * The Changes page: the draft against the latest published version (Diff), what validation says
 * about it (Validate), and Publish. After a publish, the version's rollout, live. A member whose
 * team requires review gets Request review instead of Publish, and sees their own request.
 */
export function ChangesView() {
  const diff = useQuery(ConfigService.method.diff, {});
  const validation = useQuery(ConfigService.method.validate, {});
  const [published, setPublished] = useState<PublishResponse | undefined>();
  const caller = useCaller();
  // The server decides (authorize.ts): a member of a team with require_review cannot publish.
  const reviewTeam =
    caller.role === "member" && caller.team?.requireReview === true ? caller.team.name : undefined;
  const own = useOwnReviews(caller.username, reviewTeam !== undefined);
  const refetch = () => {
    void diff.refetch();
    void validation.refetch();
  };
  const refreshing = diff.isFetching || validation.isFetching;

  const header = (
    <PageHeader
      title="Changes"
      description={
        diff.data ? (
          diff.data.fromVersion === 0n ? (
            "The draft, not published yet: nothing is served to proxies until the first publish."
          ) : (
            <>
              The draft against version{" "}
              <span className="tabular-nums">{diff.data.fromVersion.toString()}</span>, the version
              proxies are served.
            </>
          )
        ) : (
          "The draft against the version proxies are served."
        )
      }
      actions={
        <>
          {diff.dataUpdatedAt > 0 && (
            <span className="text-xs text-fg-subtle">
              Reviewed <RelativeTime date={new Date(diff.dataUpdatedAt)} />
            </span>
          )}
          <RefreshButton
            fetching={refreshing}
            shown={diff.data !== undefined || validation.data !== undefined}
            onClick={refetch}
          />
        </>
      }
    />
  );

  let body: ReactNode;
  if (diff.error && !diff.data) {
    body = (
      <LoadError
        what="the pending changes"
        procedure="switchyard.v1.ConfigService/Diff"
        error={diff.error}
        retrying={diff.isFetching}
        onRetry={refetch}
      />
    );
  } else if (!diff.data) {
    body = <LoadingBlock label="Comparing the draft with the published version…" rows={6} />;
  } else {
    const changes = diff.data.changes;
    const issues = validation.data?.issues ?? [];
    const counts = countChanges(changes);
    const blocked =
      changes.length === 0
        ? "Nothing to publish."
        : !validation.data
          ? "Validating…"
          : !validation.data.ok
            ? `Fix the errors above to ${reviewTeam === undefined ? "publish" : "request a review"}.`
            : undefined;
    body = (
      <>
        {changes.length > 0 && (
          <section
            aria-labelledby="review-title"
            className="grid gap-0 overflow-hidden rounded-xl border bg-surface shadow-xs lg:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]"
          >
            <div className="border-b p-5 lg:border-r lg:border-b-0">
              <h2 id="review-title" className="text-base font-semibold text-fg">
                Review
              </h2>
              <p className="mt-1 text-fg-muted">
                {counts.total} {counts.total === 1 ? "object" : "objects"} changed:{" "}
                {describeCounts(counts)}.
              </p>
              <ValidationSummary
                validation={validation.data}
                loading={validation.isPending}
                error={validation.error?.rawMessage}
              />
              <div className="mt-4">
                <DiscardButton reviewed={diff.data} onDiscarded={refetch} />
              </div>
            </div>
            <div className="p-5">
              <h2 className="mb-3 text-base font-semibold text-fg">
                {reviewTeam === undefined ? "Publish" : "Request review"}
              </h2>
              {caller.loading ? (
                // Publish or Request review depends on the caller's team: no flash of the other.
                <LoadingBlock label="Loading your account…" rows={3} />
              ) : reviewTeam === undefined ? (
                <PublishForm
                  reviewed={diff.data}
                  blocked={blocked}
                  rejections={newRejections(issues)}
                  onPublished={setPublished}
                  onReviewAgain={refetch}
                />
              ) : (
                <RequestReviewForm
                  reviewed={diff.data}
                  blocked={blocked}
                  team={reviewTeam}
                  replaces={own.open?.id}
                  onReviewAgain={refetch}
                />
              )}
            </div>
          </section>
        )}
        <section aria-labelledby="diff-title" className="flex flex-col gap-3">
          {changes.length > 0 && (
            <h2 id="diff-title" className="text-base font-semibold text-fg">
              Diff
            </h2>
          )}
          <ChangeList
            changes={changes}
            issues={issues}
            empty={
              published ? (
                <p className="rounded-lg border border-dashed px-4 py-5 text-center text-fg-muted">
                  No pending changes: the draft matches the published version.
                </p>
              ) : (
                <EmptyState
                  icon={<DiffIcon className="size-5" />}
                  title="No pending changes"
                  actions={
                    <>
                      <Link href={"/import" as Route} className={buttonClass("primary")}>
                        Import Envoy YAML
                      </Link>
                      <Link href={"/history" as Route} className={buttonClass("secondary")}>
                        See published versions
                      </Link>
                    </>
                  }
                >
                  The draft matches what proxies are served. Edit clusters, routes or listeners, or
                  import Envoy YAML: your edits show up here as a diff to review and publish.
                </EmptyState>
              )
            }
          />
        </section>
      </>
    );
  }

  return (
    <div className="flex flex-col gap-6">
      {header}
      {reviewTeam !== undefined && <OwnReview open={own.open} rejected={own.rejected} />}
      {published?.snapshot && (
        <div className="flex flex-col gap-3">
          <PublishedBanner response={published} onDismiss={() => setPublished(undefined)} />
          <ConvergencePanel key={published.snapshot.version} version={published.snapshot.version} />
        </div>
      )}
      {body}
    </div>
  );
}

function ValidationSummary({
  validation,
  loading,
  error,
}: {
  validation: ValidateResponse | undefined;
  loading: boolean;
  error: string | undefined;
}) {
  if (error) {
    return (
      <p role="alert" className="mt-4 text-danger">
        Validation failed to run: {error}
      </p>
    );
  }
  if (loading || !validation) {
    return (
      <p role="status" className="mt-4 text-fg-subtle">
        Validating the draft…
      </p>
    );
  }
  const { errors, warnings, notes } = groupIssues(validation.issues);
  if (validation.issues.length === 0) {
    return (
      <p className="mt-4 flex items-center gap-2 font-medium text-success">
        <CheckIcon className="size-4" /> Valid: no errors, no warnings.
      </p>
    );
  }
  return (
    <div className="mt-4 flex flex-col gap-3">
      <p
        className={`flex items-center gap-2 font-medium ${errors.length > 0 ? "text-danger" : "text-warning"}`}
      >
        <AlertTriangleIcon className="size-4" />
        {errors.length > 0
          ? `${errors.length} ${errors.length === 1 ? "error blocks" : "errors block"} publishing`
          : "Publishable, with warnings"}
        {warnings.length > 0 &&
          ` · ${warnings.length} ${warnings.length === 1 ? "warning" : "warnings"}`}
      </p>
      <div className="max-h-72 overflow-y-auto pr-1">
        <IssueList issues={[...errors, ...warnings, ...notes]} />
      </div>
    </div>
  );
}

function PublishedBanner({
  response,
  onDismiss,
}: {
  response: PublishResponse;
  onDismiss: () => void;
}) {
  const version = response.snapshot?.version.toString() ?? "";
  const alreadyFailing = response.warnings.filter((w) => w.code === "route-test-already-failing");
  return (
    <div className="flex flex-wrap items-center gap-3 rounded-lg border border-success/30 bg-success/10 px-4 py-3">
      <CheckIcon className="size-4 shrink-0 text-success" />
      <p className="min-w-0 flex-1 text-fg">
        <span className="font-medium">Version {version} published</span>
        {response.snapshot?.message && (
          <span className="text-fg-muted"> · “{response.snapshot.message}”</span>
        )}
        {response.warnings.length > 0 && (
          <span className="text-warning">
            {" "}
            · {response.warnings.length} {response.warnings.length === 1 ? "warning" : "warnings"}
          </span>
        )}
      </p>
      {response.rolloutIds.map((id) => (
        <Link
          key={id.toString()}
          href={rolloutHref(id) as Route}
          className="text-sm font-medium text-accent hover:underline"
        >
          Follow rollout {id.toString()}
        </Link>
      ))}
      <Link
        href={`/history?version=${version}` as Route}
        className="text-sm font-medium text-accent hover:underline"
      >
        View in History
      </Link>
      <Button onClick={onDismiss}>Dismiss</Button>
      {alreadyFailing.length > 0 && (
        // Route test cases that failed before this publish too: reported, they refused nothing
        // (route-test-gate.ts), unlike a case the publish breaks, which refuses it.
        <div className="flex basis-full flex-col gap-1 rounded-md border border-warning-border bg-warning-soft px-3 py-2">
          <p className="flex items-center gap-2 text-[13px] font-medium text-fg">
            <AlertTriangleIcon className="size-4 shrink-0 text-warning" />
            {alreadyFailing.length === 1
              ? "1 route test case was failing before this publish: it refused nothing."
              : `${alreadyFailing.length} route test cases were failing before this publish: they refused nothing.`}
          </p>
          <ul
            aria-label="Route test cases already failing"
            className="flex flex-col gap-0.5 font-mono text-xs text-fg-muted [overflow-wrap:anywhere]"
          >
            {alreadyFailing.map((warning) => (
              // One warning per case, naming its test and case: the message is unique.
              <li key={warning.message}>{warning.message}</li>
            ))}
          </ul>
          <p className="text-xs text-fg-muted">
            Their teams fix the routes or the tests on the{" "}
            <Link
              href={"/route-tests" as Route}
              className="font-medium text-accent hover:underline"
            >
              Route tests
            </Link>{" "}
            page.
          </p>
        </div>
      )}
    </div>
  );
}
