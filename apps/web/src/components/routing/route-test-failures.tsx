"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import type { Route } from "next";
import { FormProvider, useForm } from "react-hook-form";
import { z } from "zod";
import { TextAreaField } from "@/components/form/field";
import { Button } from "@/components/ui/button";
import { Link } from "@/components/ui/link";
import type { RouteTestRefusal } from "@/lib/route-tests";

/*
 * A publish (or a review's approval) refused because it breaks stored route tests
 * (route-test-gate.ts): each failing case with its request and what differs, and, for an admin,
 * a reason to publish anyway (PublishRequest.route_test_override), which the audit log keeps.
 */

/** The failing cases, as the server listed them. */
export function RouteTestFailures({ failures }: { failures: RouteTestRefusal }) {
  return (
    <div className="mt-2 flex flex-col gap-2">
      <ul aria-label="Failing route test cases" className="flex flex-col gap-2">
        {failures.failures.map((failure) => (
          <li
            key={failure.key}
            className="rounded-md border border-danger-border bg-surface px-3 py-2 [overflow-wrap:anywhere]"
          >
            <p className="text-[13px] font-medium text-fg">{failure.title}</p>
            {failure.request && (
              <p className="font-mono text-xs text-fg-muted">{failure.request}</p>
            )}
            {failure.differences.length > 0 && (
              <ul className="mt-1 flex flex-col gap-0.5 font-mono text-xs text-danger">
                {failure.differences.map((d) => (
                  <li key={d.key}>{d.text}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      {failures.more && <p className="text-xs text-fg-muted">{failures.more}</p>}
    </div>
  );
}

const overrideSchema = z.object({
  reason: z
    .string()
    .trim()
    .min(1, "Say why: the audit log keeps the reason beside the failing cases.")
    .max(2_000, "Keep the reason under 2,000 characters."),
});
type OverrideValues = z.input<typeof overrideSchema>;

/**
 * An admin's way past failing route tests: a reason, then `action` ("Publish anyway"). Not a
 * `<form>` of its own: it sits inside the form whose call was refused.
 */
export function RouteTestOverride({
  action,
  busy,
  onOverride,
}: {
  action: string;
  busy: boolean;
  onOverride: (reason: string) => void;
}) {
  const form = useForm<OverrideValues>({
    resolver: zodResolver(overrideSchema),
    defaultValues: { reason: "" },
  });
  const submit = form.handleSubmit((values) =>
    onOverride((values as z.output<typeof overrideSchema>).reason),
  );
  return (
    <FormProvider {...form}>
      <fieldset className="mt-3 flex min-w-0 flex-col gap-2 border-t border-danger-border pt-3">
        <legend className="float-left mb-2 text-[13px] font-medium text-fg">Override</legend>
        <TextAreaField<OverrideValues>
          name="reason"
          label="Reason"
          hint="Admins only. The audit log records the reason with the failing cases."
          placeholder="e.g. v2 is retired; checkout agreed in INC-42"
          rows={2}
          disabled={busy}
        />
        <div className="flex justify-end">
          <Button variant="danger" disabled={busy} onClick={() => void submit()}>
            {action}
          </Button>
        </div>
      </fieldset>
    </FormProvider>
  );
}

/** What a member or viewer is told instead of the override. */
export function RouteTestOverrideNote() {
  return (
    <p className="mt-2 text-[13px] text-fg-muted">
      Fix the change, or the tests on the{" "}
      <Link href={"/route-tests" as Route} className="font-medium text-accent hover:underline">
        Route tests
      </Link>{" "}
      page. An admin may publish anyway, with a reason the audit log keeps.
    </p>
  );
}
