"use client";

import {
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
  useId,
} from "react";
import { type FieldValues, type Path, useFormContext, useFormState } from "react-hook-form";

/*
 * Labelled inputs bound to the surrounding react-hook-form (`<FormProvider>`). Every input has a
 * label (visible, or for inputs in a row under column headings, for screen readers only), shows
 * its error under it, and points at that error with aria-describedby.
 */

const control =
  "block w-full rounded-md border border-border-strong bg-surface px-2.5 text-sm text-fg shadow-xs transition-colors placeholder:text-fg-subtle hover:border-fg-subtle/60 focus-visible:border-accent focus-visible:outline-2 focus-visible:outline-offset-0 aria-invalid:border-danger aria-invalid:focus-visible:outline-danger disabled:cursor-not-allowed disabled:opacity-60";

export const inputClass = `${control} h-8`;

interface FieldChrome {
  label: ReactNode;
  /** Keep the label for assistive technology only (inputs in a row under column headings). */
  hideLabel?: boolean | undefined;
  hint?: ReactNode;
  className?: string | undefined;
}

/** The error react-hook-form holds for `name` (client or server), as text. */
export function useFieldError(name: string): string | undefined {
  const { control: formControl } = useFormContext();
  const { errors } = useFormState({ control: formControl, name });
  let node: unknown = errors;
  for (const part of name.split(".")) {
    node =
      typeof node === "object" && node !== null
        ? (node as Record<string, unknown>)[part]
        : undefined;
  }
  const message =
    (node as { message?: unknown; root?: { message?: unknown } } | undefined)?.message ??
    (node as { root?: { message?: unknown } } | undefined)?.root?.message;
  return typeof message === "string" && message !== "" ? message : undefined;
}

function Chrome({
  id,
  label,
  hideLabel,
  hint,
  error,
  className = "",
  children,
}: FieldChrome & { id: string; error: string | undefined; children: ReactNode }) {
  return (
    <div className={`flex min-w-0 flex-col gap-1.5 ${className}`}>
      <label htmlFor={id} className={hideLabel ? "sr-only" : "text-[13px] font-medium text-fg"}>
        {label}
      </label>
      {children}
      {hint && !error && (
        <p id={`${id}-hint`} className="text-xs text-fg-subtle">
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

export function FieldError({ id, message }: { id?: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="text-xs font-medium text-danger [overflow-wrap:anywhere]">
      {message}
    </p>
  );
}

function describedBy(id: string, error: string | undefined, hint: ReactNode): string | undefined {
  if (error) return `${id}-error`;
  return hint ? `${id}-hint` : undefined;
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "name" | "id">;

export function TextField<T extends FieldValues>({
  name,
  label,
  hideLabel,
  hint,
  className,
  mono,
  ...props
}: FieldChrome & InputProps & { name: Path<T>; mono?: boolean }) {
  const id = useId();
  const { register } = useFormContext<T>();
  const error = useFieldError(name);
  return (
    <Chrome
      id={id}
      label={label}
      hideLabel={hideLabel}
      hint={hint}
      error={error}
      className={className}
    >
      <input
        id={id}
        type="text"
        autoComplete="off"
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        className={`${inputClass} ${mono ? "font-mono text-[13px]" : ""}`}
        {...props}
        {...register(name)}
      />
    </Chrome>
  );
}

/** A whole number typed as text (the form keeps what was typed; see lib/form-values.ts). */
export function NumberField<T extends FieldValues>(
  props: FieldChrome & InputProps & { name: Path<T> },
) {
  return <TextField<T> inputMode="numeric" {...props} mono />;
}

export function SelectField<T extends FieldValues>({
  name,
  label,
  hideLabel,
  hint,
  className,
  options,
  ...props
}: FieldChrome &
  Omit<SelectHTMLAttributes<HTMLSelectElement>, "name" | "id"> & {
    name: Path<T>;
    options: readonly { value: string; label: string }[];
  }) {
  const id = useId();
  const { register } = useFormContext<T>();
  const error = useFieldError(name);
  return (
    <Chrome
      id={id}
      label={label}
      hideLabel={hideLabel}
      hint={hint}
      error={error}
      className={className}
    >
      <select
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        className={`${inputClass} pr-8`}
        {...props}
        {...register(name)}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Chrome>
  );
}

export function TextAreaField<T extends FieldValues>({
  name,
  label,
  hideLabel,
  hint,
  className,
  mono,
  ...props
}: FieldChrome &
  Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "name" | "id"> & {
    name: Path<T>;
    mono?: boolean;
  }) {
  const id = useId();
  const { register } = useFormContext<T>();
  const error = useFieldError(name);
  return (
    <Chrome
      id={id}
      label={label}
      hideLabel={hideLabel}
      hint={hint}
      error={error}
      className={className}
    >
      <textarea
        id={id}
        spellCheck={false}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        className={`${control} min-h-20 py-2 ${mono ? "font-mono text-[12.5px] leading-5" : ""}`}
        {...props}
        {...register(name)}
      />
    </Chrome>
  );
}

/** A checkbox with its label beside it, and an optional line of explanation. */
export function CheckboxField<T extends FieldValues>({
  name,
  label,
  hint,
  className = "",
  ...props
}: Omit<FieldChrome, "hideLabel"> & InputProps & { name: Path<T> }) {
  const id = useId();
  const { register } = useFormContext<T>();
  const error = useFieldError(name);
  return (
    <div className={`flex items-start gap-2.5 ${className}`}>
      <input
        id={id}
        type="checkbox"
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        className="mt-0.5 size-4 shrink-0 rounded border-border-strong accent-accent"
        {...props}
        {...register(name)}
      />
      <div className="min-w-0">
        <label htmlFor={id} className="text-[13px] font-medium text-fg">
          {label}
        </label>
        {hint && !error && (
          <p id={`${id}-hint`} className="text-xs text-fg-subtle">
            {hint}
          </p>
        )}
        <FieldError id={`${id}-error`} message={error} />
      </div>
    </div>
  );
}

/** The error of a whole list (`localities`, `weightedClusters`), shown above or below its rows. */
export function ListError({ name }: { name: string }) {
  const error = useFieldError(name);
  return error ? (
    <p role="alert" className="text-xs font-medium text-danger">
      {error}
    </p>
  ) : null;
}
