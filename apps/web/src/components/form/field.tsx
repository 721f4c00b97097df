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

/** The hint under a field, replaced by its error once there is one. */
function Notes({ id, hint, error }: { id: string; hint: ReactNode; error: string | undefined }) {
  return (
    <>
      {hint && !error && (
        <p id={`${id}-hint`} className="text-xs text-fg-subtle">
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} message={error} />
    </>
  );
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
      <Notes id={id} hint={hint} error={error} />
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

/**
 * What every bound control needs: an id for its label, its error, the attributes that point at
 * the error (or the hint), and react-hook-form's registration. Spread `a11y` before the caller's
 * props and `registration` after them, so a caller can add attributes but not unbind the field.
 */
function useBoundField<T extends FieldValues>(name: Path<T>, hint: ReactNode) {
  const id = useId();
  const { register } = useFormContext<T>();
  const error = useFieldError(name);
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  return {
    id,
    error,
    a11y: { id, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy },
    registration: register(name),
  };
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
  const { id, error, a11y, registration } = useBoundField<T>(name, hint);
  return (
    <Chrome {...{ id, label, hideLabel, hint, error, className }}>
      <input
        type="text"
        autoComplete="off"
        spellCheck={false}
        {...a11y}
        className={`${inputClass} ${mono ? "font-mono text-[13px]" : ""}`}
        {...props}
        {...registration}
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
  const { id, error, a11y, registration } = useBoundField<T>(name, hint);
  return (
    <Chrome {...{ id, label, hideLabel, hint, error, className }}>
      <select {...a11y} className={`${inputClass} pr-8`} {...props} {...registration}>
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
  const { id, error, a11y, registration } = useBoundField<T>(name, hint);
  return (
    <Chrome {...{ id, label, hideLabel, hint, error, className }}>
      <textarea
        spellCheck={false}
        {...a11y}
        className={`${control} min-h-20 py-2 ${mono ? "font-mono text-[12.5px] leading-5" : ""}`}
        {...props}
        {...registration}
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
  const { id, error, a11y, registration } = useBoundField<T>(name, hint);
  return (
    <div className={`flex items-start gap-2.5 ${className}`}>
      <input
        type="checkbox"
        {...a11y}
        className="mt-0.5 size-4 shrink-0 rounded border-border-strong accent-accent"
        {...props}
        {...registration}
      />
      <div className="min-w-0">
        <label htmlFor={id} className="text-[13px] font-medium text-fg">
          {label}
        </label>
        <Notes id={id} hint={hint} error={error} />
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
