"use client";

import type { ConnectError } from "@connectrpc/connect";
import { useQuery } from "@connectrpc/connect-query";
import {
  type RouteTest,
  RoutingService,
  type RunRouteTestsResponse,
} from "@switchyard/proto/switchyard/v1/routing_pb";
import { useMutation } from "@tanstack/react-query";
import type { Route } from "next";
import { useId, useState } from "react";
import { toast } from "sonner";
import { useWriter } from "@/components/access/use-write-access";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { Button, buttonClass } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { AlertTriangleIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { LoadError, LoadingBlock, PageHeader } from "@/components/ui/page-states";
import { RelativeTime } from "@/components/ui/relative-time";
import { StatusPill } from "@/components/ui/status-pill";
import { messageOf } from "@/lib/access-errors";
import {
  mayWriteRouteTest,
  promoteRouteTestRequest,
  routeTestRows,
  runRows,
  runSummary,
} from "@/lib/route-tests";
import type { Writer } from "@/lib/write-access";
import { RouteTestForm } from "./route-test-form";
import { useInvalidateRouteTests, useRoutingClient } from "./use-routing-client";

/**
 * The Route tests page: the stored route tests (RoutingService.ListRouteTests), with how many of
 * their cases are known failing, every one run on the draft with one button (RunRouteTests), and,
 * for whoever may write them, a form that creates or replaces one, a confirmed delete, and
 * Promote for a test whose known-failing cases pass. Every publish that can move requests runs
 * them too (route-test-gate.ts): a case it turns from passing to failing refuses it.
 */
export function RouteTestsView() {
  const writer = useWriter();
  const routing = useRoutingClient();
  const tests = useQuery(RoutingService.method.listRouteTests, {});
  const [editing, setEditing] = useState<RouteTest | undefined>();
  const [deleting, setDeleting] = useState<RouteTest | undefined>();
  // A new form (empty, or the next test to edit) after each save.
  const [saves, setSaves] = useState(0);
  const run = useMutation<RunRouteTestsResponse, ConnectError>({
    mutationFn: () => routing.runRouteTests({ version: 0n }),
  });
  const mayCreate = mayWriteRouteTest(writer);
  const count = tests.data?.tests.length ?? 0;
  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Route tests"
        description="The answers teams rely on, pinned as cases in Envoy's router_check_tool format. Every publish that can move requests runs them; one that turns a passing case into a failing one is refused unless an admin overrides. Known-failing cases gate nothing."
        actions={
          <>
            <Link href={"/route-tester" as Route} className={buttonClass("secondary")}>
              Route tester
            </Link>
            <Button
              variant="primary"
              disabled={run.isPending || count === 0}
              onClick={() => run.mutate()}
            >
              {run.isPending ? "Running…" : "Run all on the draft"}
            </Button>
          </>
        }
      />
      {tests.error && !tests.data ? (
        <LoadError
          what="the route tests"
          procedure="switchyard.v1.RoutingService/ListRouteTests"
          error={tests.error}
          retrying={tests.isFetching}
          onRetry={() => void tests.refetch()}
        />
      ) : !tests.data ? (
        <LoadingBlock label="Loading the route tests…" rows={3} />
      ) : (
        <TestList
          tests={tests.data.tests}
          writer={writer}
          onEdit={(test) => {
            setEditing(test);
            document.getElementById("route-test-form")?.scrollIntoView({ block: "start" });
          }}
          onDelete={setDeleting}
        />
      )}
      {run.error && (
        <p
          role="alert"
          className="flex items-center gap-2 rounded-lg border border-danger-border bg-danger-soft px-4 py-3 text-sm text-fg"
        >
          <AlertTriangleIcon className="size-4 shrink-0 text-danger" />
          The tests could not run: {run.error.rawMessage}
        </p>
      )}
      {run.data && (
        <RunResults
          run={run.data}
          tests={tests.data?.tests ?? []}
          writer={writer}
          onPromoted={() => run.mutate()}
        />
      )}
      {mayCreate && (
        <div id="route-test-form" className="scroll-mt-4">
          <RouteTestForm
            key={`${saves}:${editing?.name ?? ""}`}
            writer={writer}
            editing={editing}
            onSaved={() => {
              setSaves((n) => n + 1);
              setEditing(undefined);
              run.reset();
            }}
            onCancel={() => setEditing(undefined)}
          />
        </div>
      )}
      <DeleteDialog
        test={deleting}
        onClose={() => setDeleting(undefined)}
        onDeleted={(name) => {
          if (editing?.name === name) setEditing(undefined);
          run.reset();
        }}
      />
    </div>
  );
}

function TestList({
  tests,
  writer,
  onEdit,
  onDelete,
}: {
  tests: readonly RouteTest[];
  writer: Writer;
  onEdit: (test: RouteTest) => void;
  onDelete: (test: RouteTest) => void;
}) {
  const titleId = useId();
  const rows = routeTestRows(tests);
  return (
    <Card
      id={titleId}
      title="Stored tests"
      aside={`${rows.length} ${rows.length === 1 ? "test" : "tests"}`}
    >
      {rows.length === 0 ? (
        <p className="px-5 py-6 text-center text-fg-muted">
          No route tests yet.{" "}
          {mayWriteRouteTest(writer)
            ? "Pin the answers your traffic relies on below: every publish then checks them."
            : "Admins and team members store them; you may run them."}
        </p>
      ) : (
        <table className="w-full text-left text-sm">
          <caption className="sr-only">The stored route tests</caption>
          <thead className="border-b text-xs text-fg-subtle">
            <tr>
              <th scope="col" className="px-5 py-2 font-medium">
                Name
              </th>
              <th scope="col" className="py-2 pr-4 font-medium">
                Team
              </th>
              <th scope="col" className="py-2 pr-4 font-medium">
                Cases
              </th>
              <th scope="col" className="py-2 pr-4 font-medium">
                Through
              </th>
              <th scope="col" className="py-2 pr-4 font-medium">
                Author
              </th>
              <th scope="col" className="py-2 pr-4 font-medium">
                Updated
              </th>
              <th scope="col" className="py-2 pr-5 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.key} className="border-b last:border-0">
                <th scope="row" className="px-5 py-2 font-mono text-[13px] font-medium text-fg">
                  {row.name}
                </th>
                <td className="py-2 pr-4">{row.team}</td>
                <td className="py-2 pr-4 tabular-nums">
                  {row.cases}
                  {row.knownFailing > 0 && (
                    <>
                      {" "}
                      <StatusPill tone="warning">{row.knownFailing} known failing</StatusPill>
                    </>
                  )}
                </td>
                <td className="py-2 pr-4 font-mono text-xs">{row.through}</td>
                <td className="py-2 pr-4">{row.author}</td>
                <td className="py-2 pr-4 text-fg-muted">
                  {row.updated ? <RelativeTime date={row.updated} /> : "—"}
                </td>
                <td className="py-1 pr-5 text-right whitespace-nowrap">
                  {mayWriteRouteTest(writer, row.test) && (
                    <>
                      <Button
                        variant="ghost"
                        aria-label={`Edit route test ${row.name}`}
                        onClick={() => onEdit(row.test)}
                      >
                        Edit
                      </Button>
                      <Button
                        variant="ghost"
                        aria-label={`Delete route test ${row.name}`}
                        onClick={() => onDelete(row.test)}
                      >
                        Delete
                      </Button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}

/**
 * Each test PASS or FAIL on the draft, each failing case with what differs (a known-failing one
 * marked so); a test whose known-failing cases pass offers Promote to whoever may write it.
 */
function RunResults({
  run,
  tests,
  writer,
  onPromoted,
}: {
  run: RunRouteTestsResponse;
  tests: readonly RouteTest[];
  writer: Writer;
  onPromoted: () => void;
}) {
  const titleId = useId();
  const stored = new Map(tests.map((test) => [test.name, test]));
  return (
    <Card id={titleId} title="Results on the draft" aside={runSummary(run)}>
      <ul className="flex flex-col">
        {runRows(run).map((row) => (
          <li
            key={row.key}
            aria-label={`Route test ${row.name}`}
            className="border-b px-5 py-3 last:border-0"
          >
            <div className="flex flex-wrap items-center gap-3">
              <StatusPill tone={row.passed ? "success" : "danger"}>
                {row.passed ? "PASS" : "FAIL"}
              </StatusPill>
              <span className="font-mono text-[13px] font-medium text-fg">{row.name}</span>
              <span className="text-xs text-fg-subtle">
                {row.team === "admins" ? "admins" : `team ${row.team}`} · {row.summary}
              </span>
            </div>
            {row.nowPassing.length > 0 && (
              <NowPassing
                names={row.nowPassing}
                test={stored.get(row.name)}
                writer={writer}
                onPromoted={onPromoted}
              />
            )}
            {row.failures.length > 0 && (
              <ul className="mt-2 flex flex-col gap-1.5 pl-1">
                {row.failures.map((failure) => (
                  <li key={failure.key} className="[overflow-wrap:anywhere]">
                    <p className="text-[13px] text-fg">
                      case “{failure.name}”
                      {failure.knownFailing && (
                        <>
                          {" "}
                          <StatusPill tone="warning">known failing</StatusPill>
                        </>
                      )}
                    </p>
                    <ul
                      className={`font-mono text-xs ${failure.knownFailing ? "text-fg-muted" : "text-danger"}`}
                    >
                      {failure.differences.map((d) => (
                        <li key={d.key}>{d.text}</li>
                      ))}
                    </ul>
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </Card>
  );
}

/**
 * Known-failing cases that pass on the draft, and, for whoever may write the test, Promote: the
 * test stored again without known failing (as `switchyard route tests promote`), which the server
 * refuses unless every case passes on the latest published version, which the draft may be ahead
 * of.
 */
function NowPassing({
  names,
  test,
  writer,
  onPromoted,
}: {
  names: readonly string[];
  test: RouteTest | undefined;
  writer: Writer;
  onPromoted: () => void;
}) {
  const routing = useRoutingClient();
  const invalidate = useInvalidateRouteTests();
  const promote = useMutation<RouteTest, unknown, RouteTest>({
    mutationFn: (stored) => routing.putRouteTest(promoteRouteTestRequest(stored)),
    onSuccess: (promoted) => {
      toast.success(`Route test “${promoted.name}” promoted`, {
        description:
          "Every case passes on the latest version and gates: a publish that breaks one is refused.",
      });
      void invalidate();
      onPromoted();
    },
    onError: (error, stored) =>
      toast.error(`Couldn’t promote “${stored.name}”`, { description: messageOf(error) }),
  });
  const quoted = names.map((name) => `“${name}”`).join(", ");
  return (
    <div className="mt-2 flex flex-wrap items-center gap-3 rounded-md border border-success/30 bg-success/10 px-3 py-2 text-[13px] text-fg">
      <p className="min-w-0 flex-1">
        Known failing, passing on the draft: {names.length === 1 ? "case" : "cases"} {quoted}.
        Promote the test once {names.length === 1 ? "it passes" : "they pass"} on the latest
        published version too: then {names.length === 1 ? "it gates" : "they gate"} publishes again.
      </p>
      {test !== undefined && mayWriteRouteTest(writer, test) && (
        <Button
          variant="secondary"
          aria-label={`Promote route test ${test.name}`}
          disabled={promote.isPending}
          onClick={() => promote.mutate(test)}
        >
          {promote.isPending ? "Promoting…" : "Promote"}
        </Button>
      )}
    </div>
  );
}

/** Deleting a test, once confirmed (DeleteRouteTest). */
function DeleteDialog({
  test,
  onClose,
  onDeleted,
}: {
  test: RouteTest | undefined;
  onClose: () => void;
  onDeleted: (name: string) => void;
}) {
  const routing = useRoutingClient();
  const invalidate = useInvalidateRouteTests();
  const remove = useMutation<unknown, unknown, string>({
    mutationFn: (name) => routing.deleteRouteTest({ name }),
    onSuccess: (_, name) => {
      toast.success(`Route test “${name}” deleted`, {
        description: "Publishing no longer checks its cases.",
      });
      onDeleted(name);
    },
    onError: (error, name) =>
      toast.error(`Couldn’t delete route test “${name}”`, { description: messageOf(error) }),
    onSettled: () => {
      void invalidate();
      onClose();
    },
  });
  return (
    <ConfirmDialog
      open={test !== undefined}
      title={`Delete route test “${test?.name ?? ""}”?`}
      confirmLabel={remove.isPending ? "Deleting…" : "Delete route test"}
      danger
      busy={remove.isPending}
      onConfirm={() => test && remove.mutate(test.name)}
      onCancel={onClose}
    >
      Its {test?.cases ?? 0} {test?.cases === 1 ? "case is" : "cases are"} no longer run: publishing
      stops checking them. Nothing else changes.
    </ConfirmDialog>
  );
}
