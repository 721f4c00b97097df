"use client";

import { ConnectError, createClient } from "@connectrpc/connect";
import { useQuery, useTransport } from "@connectrpc/connect-query";
import { zodResolver } from "@hookform/resolvers/zod";
import { ConfigService } from "@switchyard/proto/switchyard/v1/config_pb";
import { RoutingService, type TestRouteResponse } from "@switchyard/proto/switchyard/v1/routing_pb";
import { useMutation } from "@tanstack/react-query";
import type { Route } from "next";
import { useId, useMemo } from "react";
import { FormProvider, useForm } from "react-hook-form";
import type { z } from "zod";
import { SelectField, TextAreaField, TextField } from "@/components/form/field";
import { Button, buttonClass } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { AlertTriangleIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { PageHeader } from "@/components/ui/page-states";
import {
  answerSteps,
  type RouteTesterValues,
  routeRows,
  routeTesterDefaults,
  routeTesterSchema,
  testRouteRequest,
  topologyPathHref,
} from "@/lib/route-tester";
import { useThroughOptions } from "./use-through-options";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "CONNECT"];

/**
 * The Route tester: a request typed in (through a listener or a route configuration, host, path,
 * method, headers; on the draft or a published version; optionally for a node group's nodes), and
 * where Envoy sends it (RoutingService.TestRoute), step by step, with the route configuration's
 * routes listed and the one that matched marked.
 */
export function RouteTester() {
  const transport = useTransport();
  const routing = useMemo(() => createClient(RoutingService, transport), [transport]);
  const snapshots = useQuery(ConfigService.method.listSnapshots, { limit: 20 });
  const groups = useQuery(ConfigService.method.listNodeGroups, {});
  const form = useForm<RouteTesterValues>({
    resolver: zodResolver(routeTesterSchema),
    defaultValues: routeTesterDefaults,
  });
  const ask = useMutation<TestRouteResponse, ConnectError, z.output<typeof routeTesterSchema>>({
    mutationFn: async (values) => {
      try {
        return await routing.testRoute(testRouteRequest(values));
      } catch (error) {
        throw ConnectError.from(error);
      }
    },
  });
  const throughOptions = useThroughOptions("Choose…");
  const versionOptions = [
    { value: "0", label: "The draft" },
    ...(snapshots.data?.snapshots ?? []).map((s) => ({
      value: s.version.toString(),
      label: `Version ${s.version}${s.message ? `: ${s.message.slice(0, 40)}` : ""}`,
    })),
  ];
  const groupOptions = [
    { value: "", label: "Any node" },
    ...(groups.data?.nodeGroups ?? []).map((g) => ({ value: g.name, label: g.name })),
  ];
  const submit = form.handleSubmit((values) =>
    ask.mutate(values as z.output<typeof routeTesterSchema>),
  );
  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Route tester"
        description="Where does this request go? Answered as Envoy routes it: the virtual host, the first route that matches, and what it does."
        actions={
          <Link href={"/route-tests" as Route} className={buttonClass("secondary")}>
            Route tests
          </Link>
        }
      />
      <Card id="route-tester-request" title="Request">
        <FormProvider {...form}>
          <form onSubmit={submit} className="grid gap-4 p-5 md:grid-cols-2" noValidate>
            <SelectField<RouteTesterValues>
              name="through"
              label="Through"
              options={throughOptions}
            />
            <SelectField<RouteTesterValues>
              name="version"
              label="Version"
              options={versionOptions}
            />
            <TextField<RouteTesterValues>
              name="host"
              label="Host"
              placeholder="api.example.com"
              mono
            />
            <TextField<RouteTesterValues>
              name="path"
              label="Path"
              placeholder="/v2/orders?id=7"
              mono
            />
            <SelectField<RouteTesterValues>
              name="method"
              label="Method"
              options={METHODS.map((m) => ({ value: m, label: m }))}
            />
            <SelectField<RouteTesterValues>
              name="nodeGroup"
              label="Node group"
              options={groupOptions}
            />
            <TextAreaField<RouteTesterValues>
              name="headers"
              label="Headers"
              hint="One per line, name: value"
              className="md:col-span-2"
              mono
            />
            <div className="md:col-span-2">
              <Button type="submit" variant="primary" disabled={ask.isPending}>
                {ask.isPending ? "Asking…" : "Where does it go?"}
              </Button>
            </div>
          </form>
        </FormProvider>
      </Card>
      {ask.error && (
        <p
          role="alert"
          className="flex items-center gap-2 rounded-lg border border-danger-border bg-danger-soft px-4 py-3 text-sm text-fg"
        >
          <AlertTriangleIcon className="size-4 shrink-0 text-danger" />
          The request cannot be answered: {ask.error.rawMessage}
        </p>
      )}
      {ask.data && <Answer answer={ask.data} />}
    </div>
  );
}

function Answer({ answer }: { answer: TestRouteResponse }) {
  const steps = answerSteps(answer);
  const titleId = useId();
  const topology = answer.version === 0n ? topologyPathHref(answer) : undefined;
  return (
    <div className="flex flex-col gap-4">
      <Card
        id={titleId}
        title="Where it goes"
        aside={
          topology ? (
            <Link href={topology as Route} className="text-accent hover:underline">
              Show on topology
            </Link>
          ) : undefined
        }
      >
        <dl className="grid grid-cols-[minmax(8rem,auto)_1fr] gap-x-6 gap-y-2 p-5 text-sm">
          {steps.map((step) => (
            <div key={`${step.label}: ${step.text}`} className="contents">
              <dt className="text-fg-subtle">{step.label}</dt>
              <dd
                className={`font-mono text-[13px] [overflow-wrap:anywhere] ${step.tone === "danger" ? "text-danger" : step.tone === "accent" ? "font-semibold text-fg" : "text-fg"}`}
              >
                {step.text}
              </dd>
            </div>
          ))}
        </dl>
        {answer.notes.length > 0 && (
          <ul className="border-t px-5 py-3 text-xs text-fg-muted">
            {answer.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        )}
      </Card>
      {answer.version === 0n && <RouteTable answer={answer} />}
    </div>
  );
}

/** The draft's route configuration, every virtual host and route, the path taken marked. */
function RouteTable({ answer }: { answer: TestRouteResponse }) {
  const rc = useQuery(ConfigService.method.getRouteConfiguration, {
    name: answer.routeConfiguration,
  });
  const chosenHost = answer.virtualHost?.index;
  const chosenRoute =
    answer.verdict.case === "routed"
      ? answer.verdict.value.route?.index
      : answer.verdict.case === "cannotEvaluate"
        ? answer.verdict.value.routeIndex
        : undefined;
  if (!rc.data) return null;
  return (
    <Card id="route-tester-table" title={`Route configuration ${answer.routeConfiguration}`}>
      <table className="w-full text-left text-sm">
        <caption className="sr-only">The routes, with the path the request takes marked</caption>
        <thead className="border-b text-xs text-fg-subtle">
          <tr>
            <th scope="col" className="px-5 py-2 font-medium">
              Virtual host
            </th>
            <th scope="col" className="py-2 pr-4 font-medium">
              #
            </th>
            <th scope="col" className="py-2 pr-4 font-medium">
              Match
            </th>
            <th scope="col" className="py-2 pr-5 font-medium">
              Goes to
            </th>
          </tr>
        </thead>
        <tbody>
          {routeRows(rc.data, chosenHost, chosenRoute).map((row) => (
            <tr
              key={row.key}
              aria-current={row.taken ? "true" : undefined}
              className={`border-b last:border-0 ${row.taken ? "bg-accent/10 font-medium" : row.inChosenHost ? "" : "text-fg-subtle"}`}
            >
              <td className="px-5 py-1.5 font-mono text-xs">{row.virtualHost}</td>
              <td className="py-1.5 pr-4 tabular-nums">{row.position}</td>
              <td className="py-1.5 pr-4 font-mono text-xs">{row.match}</td>
              <td className="py-1.5 pr-5 font-mono text-xs">{row.target}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Card>
  );
}
