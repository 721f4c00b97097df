"use client";

import { skipToken, useQuery } from "@connectrpc/connect-query";
import { zodResolver } from "@hookform/resolvers/zod";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import type { RouteTest } from "@switchyard/proto/switchyard/v1/routing_pb";
import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { FormProvider, useForm } from "react-hook-form";
import { toast } from "sonner";
import type { z } from "zod";
import { FormAlert } from "@/components/access/access-form";
import { CheckboxField, SelectField, TextAreaField, TextField } from "@/components/form/field";
import { revealNamedField } from "@/components/form/reveal-error";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import {
  type KeyedText,
  putRouteTestRequest,
  type RouteTestValues,
  routeTestDefaults,
  routeTestExample,
  routeTestSaveFailure,
  routeTestSchema,
  routeTestValues,
} from "@/lib/route-tests";
import type { Writer } from "@/lib/write-access";
import { useInvalidateRouteTests, useRoutingClient } from "./use-routing-client";
import { useThroughOptions } from "./use-through-options";

/**
 * Creates a route test, or replaces `editing` (PutRouteTest): its name, its team (admins choose;
 * a member's is their team), what its cases route through, the cases in router_check_tool's
 * format, and whether those failing on the latest version are stored as known failing. A refusal
 * is shown at the field the server names, malformed cases (or cases failing on the latest
 * version) each with its path in the file, under the cases; cases refused for failing there are
 * offered to be stored as known failing.
 */
export function RouteTestForm({
  writer,
  editing,
  onSaved,
  onCancel,
}: {
  writer: Writer;
  editing: RouteTest | undefined;
  onSaved: (test: RouteTest) => void;
  onCancel: () => void;
}) {
  const routing = useRoutingClient();
  const invalidate = useInvalidateRouteTests();
  const titleId = useId();
  const teams = useQuery(AccessService.method.listTeams, writer.role === "admin" ? {} : skipToken);
  const form = useForm<RouteTestValues>({
    resolver: zodResolver(routeTestSchema),
    defaultValues: editing ? routeTestValues(editing) : routeTestDefaults,
  });
  const [alert, setAlert] = useState<string | undefined>();
  const [issues, setIssues] = useState<readonly KeyedText[]>([]);
  const [failingOnLatest, setFailingOnLatest] = useState(false);
  const save = useMutation<RouteTest, unknown, z.output<typeof routeTestSchema>>({
    mutationFn: (values) => routing.putRouteTest(putRouteTestRequest(values, writer)),
    onMutate: () => {
      setAlert(undefined);
      setIssues([]);
      setFailingOnLatest(false);
    },
    onSuccess: (test) => {
      const known = test.knownFailingCases.length;
      toast.success(`Route test “${test.name}” saved`, {
        description: `${test.cases} ${test.cases === 1 ? "case" : "cases"}: every publish that can move requests runs them.${
          known === 0
            ? ""
            : ` ${known} known failing: ${known === 1 ? "it gates" : "they gate"} nothing until the test is promoted.`
        }`,
      });
      void invalidate();
      onSaved(test);
    },
    onError: (error) => {
      const failure = routeTestSaveFailure(error);
      setIssues(failure.issues);
      setFailingOnLatest(failure.failingOnLatest);
      if (failure.field === undefined) setAlert(failure.message);
      else {
        form.setError(failure.field, { type: "server", message: failure.message });
        revealNamedField(failure.field);
      }
    },
  });
  const throughOptions = useThroughOptions("The only route configuration");
  const teamOptions = [
    { value: "", label: "No team (an admin’s test)" },
    ...(teams.data?.teams ?? []).map((t) => ({ value: t.name, label: t.name })),
  ];
  const submit = form.handleSubmit((values) =>
    save.mutate(values as z.output<typeof routeTestSchema>),
  );
  return (
    <Card
      id={titleId}
      title={editing ? `Edit route test ${editing.name}` : "New route test"}
      aside={editing ? "Saving replaces its cases." : undefined}
    >
      <FormProvider {...form}>
        <form onSubmit={submit} noValidate className="grid gap-4 p-5 md:grid-cols-3">
          <TextField<RouteTestValues>
            name="name"
            label="Name"
            placeholder="checkout-pins"
            readOnly={editing !== undefined}
            mono
          />
          {writer.role === "admin" ? (
            <SelectField<RouteTestValues> name="team" label="Team" options={teamOptions} />
          ) : (
            <div className="flex flex-col gap-1.5">
              <p className="text-[13px] font-medium text-fg">Team</p>
              <p className="flex h-8 items-center text-sm text-fg-muted">
                {writer.team?.name ?? "—"} (yours: its cases ask only for its domains)
              </p>
            </div>
          )}
          <SelectField<RouteTestValues> name="through" label="Through" options={throughOptions} />
          <div className="flex flex-col gap-2 md:col-span-3">
            <TextAreaField<RouteTestValues>
              name="content"
              label="Cases"
              hint="Envoy's router_check_tool format, YAML or JSON: tests: [{test_name, input: {authority, path, method}, validate: {cluster_name, path_rewrite, …}}]"
              placeholder={routeTestExample}
              rows={10}
              mono
            />
            {issues.length > 0 && (
              <ul
                aria-label="Problems in the cases"
                className="flex flex-col gap-0.5 font-mono text-xs text-danger [overflow-wrap:anywhere]"
              >
                {issues.map((issue) => (
                  <li key={issue.key}>{issue.text}</li>
                ))}
              </ul>
            )}
            {failingOnLatest && (
              <div className="flex flex-wrap items-center gap-3 rounded-md border border-warning-border bg-warning-soft px-3 py-2 text-[13px] text-fg">
                <p className="min-w-0 flex-1">
                  Fix the cases, or store the failing ones as known failing: they gate no publish
                  until they pass on the latest version and the test is promoted.
                </p>
                <Button
                  variant="secondary"
                  disabled={save.isPending}
                  onClick={() => {
                    form.setValue("knownFailing", true);
                    void submit();
                  }}
                >
                  Store as known failing
                </Button>
              </div>
            )}
          </div>
          <CheckboxField<RouteTestValues>
            name="knownFailing"
            label="Store the cases that fail on the latest version as known failing"
            hint="A test must pass on the latest published version to be stored. Known-failing cases gate nothing until they pass and the test is promoted."
            className="md:col-span-3"
          />
          <div className="flex flex-wrap items-center justify-end gap-3 md:col-span-3">
            <div className="mr-auto min-w-0">
              <FormAlert message={alert} />
            </div>
            {editing && (
              <Button variant="ghost" onClick={onCancel} disabled={save.isPending}>
                Cancel
              </Button>
            )}
            <Button type="submit" variant="primary" disabled={save.isPending}>
              {save.isPending ? "Saving…" : editing ? "Replace test" : "Save test"}
            </Button>
          </div>
        </form>
      </FormProvider>
    </Card>
  );
}
