"use client";

import type { ConnectError } from "@connectrpc/connect";
import { zodResolver } from "@hookform/resolvers/zod";
import type { UseQueryResult } from "@tanstack/react-query";
import type { Route } from "next";
import { type FormEventHandler, type ReactNode, useState } from "react";
import {
  type DefaultValues,
  type FieldValues,
  FormProvider,
  type Path,
  type UseFormReturn,
  useForm,
} from "react-hook-form";
import type { z } from "zod";
import { revealNamedField } from "@/components/form/reveal-error";
import { FormSection } from "@/components/form/section";
import { Button, buttonClass } from "@/components/ui/button";
import { AlertTriangleIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { EditorSkeleton, LoadError, PageHeader } from "@/components/ui/page-states";
import { accessFailureOf, type FieldRule } from "@/lib/access-errors";

/**
 * A react-hook-form over `schema` whose `run` sends a call and, when the server refuses it,
 * puts the server's message at the field it concerns (lib/access-errors.ts) or, failing that,
 * above the form's button. `error` is that form-wide message.
 */
export function useAccessForm<F extends FieldValues>(options: {
  schema: z.ZodType<F, F>;
  defaults: F;
  /** Rules naming a field this form does not have are skipped. */
  rules: readonly FieldRule<string>[];
}) {
  const form = useForm<F>({
    resolver: zodResolver(options.schema),
    defaultValues: options.defaults as DefaultValues<F>,
    mode: "onTouched",
  });
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  /** Sends `call`; answers whether it succeeded. */
  const run = async (call: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(undefined);
    try {
      await call();
      return true;
    } catch (e) {
      const fields = Object.keys(options.defaults);
      const failure = accessFailureOf(
        e,
        options.rules.filter((rule) => fields.includes(rule.field)),
      );
      if (failure.field !== undefined) {
        const field = failure.field as Path<F>;
        form.setError(field, { type: "server", message: failure.message });
        revealNamedField(field);
      } else {
        setError(failure.message || "The request failed.");
      }
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { form, error, busy, run };
}

/** A form-wide refusal, shown beside the form's button. */
export function FormAlert({ message }: { message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p
      role="alert"
      className="flex min-w-0 items-start gap-2 text-[13px] font-medium text-danger [overflow-wrap:anywhere]"
    >
      <AlertTriangleIcon className="mt-0.5 size-4 shrink-0" />
      {message}
    </p>
  );
}

/** One titled card holding a small form: its fields, then its refusal and its button. */
export function SectionForm<F extends FieldValues>({
  form,
  onSubmit,
  title,
  description,
  submitLabel,
  busy,
  error,
  disabled = false,
  children,
}: {
  form: UseFormReturn<F>;
  onSubmit: (values: F) => Promise<unknown>;
  title: string;
  description?: ReactNode;
  submitLabel: string;
  busy: boolean;
  error: string | undefined;
  /** The button stays off (nothing changed yet, say). */
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <FormProvider {...form}>
      <form
        noValidate
        onSubmit={form.handleSubmit(async (values) => {
          await onSubmit(values);
        })}
      >
        <FormSection title={title} description={description}>
          {children}
          <div className="flex flex-wrap items-center justify-end gap-3">
            <div className="mr-auto min-w-0">
              <FormAlert message={error} />
            </div>
            <Button type="submit" variant="primary" disabled={busy || disabled}>
              {busy ? "Saving…" : submitLabel}
            </Button>
          </div>
        </FormSection>
      </form>
    </FormProvider>
  );
}

/**
 * A "New …" page: its header (under a link back to the list), the form's sections, then its
 * refusal, Cancel (back to the list) and the create button.
 */
export function CreatePage<F extends FieldValues>({
  form,
  onSubmit,
  list,
  title,
  description,
  submitLabel,
  busy,
  error,
  children,
}: {
  form: UseFormReturn<F>;
  onSubmit: FormEventHandler<HTMLFormElement>;
  /** The list the page belongs to, e.g. { href: "/teams", label: "Teams" }. */
  list: { readonly href: Route; readonly label: string };
  title: string;
  description: string;
  submitLabel: string;
  busy: boolean;
  error: string | undefined;
  children: ReactNode;
}) {
  return (
    <FormProvider {...form}>
      <form onSubmit={onSubmit} noValidate className="flex flex-col gap-6">
        <PageHeader
          eyebrow={
            <Link href={list.href} className="hover:text-fg hover:underline">
              {list.label}
            </Link>
          }
          title={title}
          description={description}
        />
        {children}
        <div className="flex flex-wrap items-center justify-end gap-3">
          <div className="mr-auto min-w-0">
            <FormAlert message={error} />
          </div>
          <Link href={list.href} className={buttonClass("ghost")}>
            Cancel
          </Link>
          <Button type="submit" variant="primary" disabled={busy}>
            {busy ? "Creating…" : submitLabel}
          </Button>
        </div>
      </form>
    </FormProvider>
  );
}

/**
 * One object of a listed kind, found in its list: the load error, a skeleton while loading, a
 * page saying it does not exist (with a link back), or `children` with it.
 */
export function FromList<D, T>({
  query,
  what,
  find,
  missing,
  children,
}: {
  query: UseQueryResult<D, ConnectError>;
  /** "the team" */
  what: string;
  find: (data: D) => T | undefined;
  missing: {
    readonly title: string;
    readonly text: string;
    readonly href: Route;
    readonly label: string;
  };
  children: (found: T, data: D) => ReactNode;
}) {
  if (query.error)
    return (
      <LoadError
        what={what}
        error={query.error}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  if (!query.data) return <EditorSkeleton label={what} />;
  const found = find(query.data);
  if (found === undefined)
    return (
      <div className="flex flex-col gap-6">
        <PageHeader title={missing.title} />
        <p className="text-fg-muted">
          {missing.text}{" "}
          <Link href={missing.href} className="font-medium text-accent hover:underline">
            {missing.label}
          </Link>
        </p>
      </div>
    );
  return <>{children(found, query.data)}</>;
}
