"use client";

import { zodResolver } from "@hookform/resolvers/zod";
import { type ReactNode, useState } from "react";
import {
  type DefaultValues,
  type FieldValues,
  FormProvider,
  type Path,
  type UseFormReturn,
  useForm,
} from "react-hook-form";
import type { z } from "zod";
import { FormSection } from "@/components/form/section";
import { Button } from "@/components/ui/button";
import { AlertTriangleIcon } from "@/components/ui/icons";
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
        form.setFocus(field);
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
