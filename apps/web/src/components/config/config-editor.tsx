"use client";

import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { zodResolver } from "@hookform/resolvers/zod";
import type { Issue } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { useRouter } from "next/navigation";
import { type ReactNode, useState } from "react";
import {
  type DefaultValues,
  type FieldValues,
  FormProvider,
  type Path,
  useForm,
} from "react-hook-form";
import { toast } from "sonner";
import type { z } from "zod";
import { isConfigKind, useWriteAccess } from "@/components/access/use-write-access";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { ErrorSummary } from "@/components/form/error-summary";
import { useRevealProblem } from "@/components/form/reveal-error";
import { UnsavedChangesGuard } from "@/components/form/unsaved-changes-guard";
import { Button, buttonClass } from "@/components/ui/button";
import { Link } from "@/components/ui/link";
import { PageHeader } from "@/components/ui/page-states";
import { RelativeTime } from "@/components/ui/relative-time";
import { saveFailureOf } from "@/lib/api-errors";
import { formErrors, notSavedText } from "@/lib/form-errors";
import { type FieldMap, type FormIssue, placeIssues } from "@/lib/issue-path";
import type { WriteAccess } from "@/lib/write-access";
import { capitalized, toastDeleted, toastSavedToDraft } from "./saved-toast";
import { useInvalidateConfig } from "./use-config-client";

interface Stored {
  name: string;
  updateTime?: Timestamp | undefined;
  /** A save's answer: the draft's issues about the object as saved (Cluster.warnings, ...). */
  warnings?: readonly Issue[];
}

/** What the editor needs to know about one kind of object. */
export interface EditorKind<M extends Stored, F extends FieldValues> {
  /** "cluster", as in "Cluster “x” saved". */
  readonly label: string;
  readonly listHref: Route;
  readonly listLabel: string;
  readonly hrefOf: (name: string) => Route;
  readonly schema: z.ZodType<F, F>;
  /** The values a new object starts with. */
  readonly empty: () => F;
  readonly fieldMap: FieldMap;
  readonly formOf: (message: M) => F;
  readonly messageOf: (form: F, original?: M) => M;
  readonly create: (message: M) => Promise<M>;
  readonly update: (message: M) => Promise<M>;
  readonly remove: (name: string) => Promise<unknown>;
  /** The stored object now, or `undefined` when it is gone: to notice someone else's change. */
  readonly current: (name: string) => Promise<M | undefined>;
  /**
   * The field a refusal (PermissionDenied: a part of the object is not the caller's) concerns,
   * when it names one; otherwise the refusal is shown for the whole form.
   */
  readonly placeRefusal?: (
    message: string,
    values: F,
  ) => { readonly field: string; readonly message: string } | undefined;
}

const sameTime = (a: Timestamp | undefined, b: Timestamp | undefined) =>
  a?.seconds === b?.seconds && a?.nanos === b?.nanos;

type Conflict<M> =
  | { readonly t: "changed"; readonly theirs: M; readonly values: unknown }
  | { readonly t: "deleted"; readonly values: unknown };

interface Summary {
  readonly title: string;
  readonly placed: number;
  readonly unplaced: readonly FormIssue[];
}

/**
 * Create or edit one stored object. Saves go to the draft; the server's validation issues are put
 * at their fields (lib/issue-path.ts) and the rest in a summary at the top.
 *
 * Concurrency: the API's Update replaces the object by name, last write wins, with no revision
 * check. So before an update the editor reads the object again and compares its update time with
 * the one it was loaded with; if someone else saved (or deleted) it meanwhile, it asks before
 * overwriting. This narrows the window but cannot close it: only the server could.
 */
export function ConfigEditor<M extends Stored, F extends FieldValues>({
  kind,
  original,
  initialValues,
  description,
  deleteAccess,
  children,
}: {
  kind: EditorKind<M, F>;
  /** The stored object being edited; `undefined` to create one. */
  original: M | undefined;
  /** For a new object: values to start from instead of `kind.empty()`. */
  initialValues?: F;
  description?: ReactNode;
  /**
   * Whether the caller may delete the stored object, when that depends on more than its kind and
   * name (a route configuration: every virtual host must be theirs). Delete is offered unless denied.
   */
  deleteAccess?: (stored: M) => WriteAccess;
  children: ReactNode;
}) {
  const router = useRouter();
  const invalidate = useInvalidateConfig();
  const [loaded, setLoaded] = useState(original);
  const form = useForm<F>({
    resolver: zodResolver(kind.schema),
    defaultValues: (original
      ? kind.formOf(original)
      : (initialValues ?? kind.empty())) as DefaultValues<F>,
    mode: "onTouched",
    // A failed save brings its first problem into view itself (revealProblem): react-hook-form's
    // own focus scrolls the field to the nearest edge, under the fixed Save bar.
    shouldFocusError: false,
  });
  const { ref: formRef, reveal: revealProblem } = useRevealProblem<HTMLFormElement>();
  const [summary, setSummary] = useState<Summary | undefined>();
  const [conflict, setConflict] = useState<Conflict<M> | undefined>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [busy, setBusy] = useState(false);
  const editing = loaded !== undefined;
  const Label = capitalized(kind.label);
  // Who may not change this object reads it: no save, no delete, and the reason why.
  const access = useWriteAccess(isConfigKind(kind.label) ? kind.label : "cluster", loaded?.name);
  const readOnly = access.t === "denied" ? access.reason : undefined;
  const mayDelete =
    loaded !== undefined && readOnly === undefined && deleteAccess?.(loaded).t !== "denied";

  /**
   * Saves `values`. An update carries the update_time of `base` (the version edited), so the
   * server refuses it if someone saved another since.
   */
  const write = async (values: F, mode: "create" | "update", base: M | undefined = loaded) => {
    const message =
      mode === "update" && base !== undefined
        ? { ...kind.messageOf(values, base), updateTime: base.updateTime }
        : kind.messageOf(values, base);
    setBusy(true);
    try {
      const saved = await (mode === "create" ? kind.create(message) : kind.update(message));
      setSummary(undefined);
      setLoaded(saved);
      form.reset(kind.formOf(saved));
      await invalidate();
      toastSavedToDraft(kind.label, saved.name, saved.warnings);
      if (mode === "create") router.replace(kind.hrefOf(saved.name));
    } catch (error) {
      const failure = saveFailureOf(error);
      switch (failure.t) {
        case "invalid": {
          const placed = placeIssues(failure.issues, values, kind.fieldMap);
          let first: string | undefined;
          for (const [field, issues] of placed.byField) {
            first ??= field;
            form.setError(field as Path<F>, {
              type: "server",
              message: issues
                .map((i) => (i.hint ? `${i.message} (${i.hint})` : i.message))
                .join(" "),
            });
          }
          setSummary({
            title: `The server refused this ${kind.label}`,
            placed: [...placed.byField.values()].reduce((n, list) => n + list.length, 0),
            unplaced: placed.unplaced,
          });
          if (first) revealProblem();
          break;
        }
        case "exists":
          form.setError("name" as Path<F>, {
            type: "server",
            message: `A ${kind.label} with this name already exists: choose another name, or edit that one`,
          });
          setSummary(undefined);
          revealProblem();
          break;
        case "gone":
          setConflict({ t: "deleted", values });
          break;
        case "changed": {
          const theirs = await kind.current(message.name).catch(() => undefined);
          setConflict(theirs ? { t: "changed", theirs, values } : { t: "deleted", values });
          break;
        }
        case "denied": {
          const placed = kind.placeRefusal?.(failure.message, values);
          if (placed === undefined) {
            setSummary({ title: `Couldn’t save: ${failure.message}`, placed: 0, unplaced: [] });
            break;
          }
          form.setError(placed.field as Path<F>, { type: "server", message: placed.message });
          setSummary({ title: `The server refused this ${kind.label}`, placed: 1, unplaced: [] });
          revealProblem();
          break;
        }
        case "other":
          setSummary({ title: `Couldn’t save: ${failure.message}`, placed: 0, unplaced: [] });
          break;
      }
    } finally {
      setBusy(false);
    }
  };

  const onSubmit = form.handleSubmit(async (values) => {
    setSummary(undefined);
    if (!loaded) return write(values, "create");
    setBusy(true);
    let now: M | undefined;
    try {
      now = await kind.current(loaded.name);
    } catch (error) {
      setBusy(false);
      setSummary({
        title: `Couldn’t save: ${saveFailureOf(error).message}`,
        placed: 0,
        unplaced: [],
      });
      return;
    }
    setBusy(false);
    if (!now) return setConflict({ t: "deleted", values });
    if (!sameTime(now.updateTime, loaded.updateTime)) {
      return setConflict({ t: "changed", theirs: now, values });
    }
    return write(values, "update");
  }, revealProblem);

  const onDelete = async () => {
    if (!loaded) return;
    setBusy(true);
    try {
      await kind.remove(loaded.name);
      form.reset(form.getValues());
      await invalidate();
      toastDeleted(kind.label, loaded.name);
      router.push(kind.listHref);
    } catch (error) {
      toast.error(`Couldn’t delete ${kind.label} “${loaded.name}”`, {
        description: saveFailureOf(error).message,
      });
    } finally {
      setBusy(false);
      setConfirmDelete(false);
    }
  };

  const dirty = form.formState.isDirty;
  // What is wrong, said by the Save bar too: the field itself may be far up the page.
  const notSaved =
    notSavedText(formErrors(form.formState.errors)) ??
    (summary ? `Not saved: ${summary.title}` : undefined);
  const updated = loaded?.updateTime ? timestampDate(loaded.updateTime) : undefined;

  return (
    <FormProvider {...form}>
      <form ref={formRef} onSubmit={onSubmit} noValidate className="flex flex-col gap-6 pb-24">
        <PageHeader
          eyebrow={
            <Link href={kind.listHref} className="hover:text-fg hover:underline">
              {kind.listLabel}
            </Link>
          }
          title={editing ? loaded.name : `New ${kind.label}`}
          description={
            editing && updated ? (
              <>
                In the draft · saved <RelativeTime date={updated} />
              </>
            ) : (
              description
            )
          }
          actions={
            mayDelete && (
              <Button variant="secondary" onClick={() => setConfirmDelete(true)} disabled={busy}>
                Delete…
              </Button>
            )
          }
        />
        {readOnly !== undefined && (
          <p role="note" className="rounded-lg border bg-surface-muted px-4 py-3 text-fg-muted">
            Read-only: {readOnly}
          </p>
        )}
        {summary && (
          <ErrorSummary title={summary.title} placed={summary.placed} unplaced={summary.unplaced} />
        )}
        <fieldset disabled={readOnly !== undefined} className="contents">
          {children}
        </fieldset>
        <div className="fixed right-0 bottom-0 left-0 z-10 border-t bg-canvas/90 backdrop-blur-md md:left-60">
          <div className="mx-auto flex max-w-6xl items-center gap-3 px-4 py-3 md:px-8">
            {notSaved !== undefined ? (
              <p
                role="alert"
                className="flex min-w-0 items-center gap-2 text-[13px] font-medium text-danger"
              >
                <span className="min-w-0 truncate" title={notSaved}>
                  {notSaved}
                </span>
                <button
                  type="button"
                  onClick={revealProblem}
                  className="shrink-0 underline underline-offset-2 hover:text-fg"
                >
                  Show
                </button>
              </p>
            ) : (
              <p className="text-[13px] text-fg-muted" aria-live="polite">
                {dirty ? (
                  <span className="inline-flex items-center gap-2">
                    <span aria-hidden="true" className="size-1.5 rounded-full bg-warning" />
                    Unsaved changes
                  </span>
                ) : editing ? (
                  "All changes saved to the draft"
                ) : (
                  "Saved to the draft, not live until published"
                )}
              </p>
            )}
            <div className="ml-auto flex gap-2">
              <Link href={kind.listHref} className={buttonClass("ghost")}>
                {dirty ? "Cancel" : "Back"}
              </Link>
              {readOnly === undefined && (
                <Button type="submit" variant="primary" disabled={busy || (editing && !dirty)}>
                  {busy ? "Saving…" : editing ? "Save to draft" : `Create ${kind.label}`}
                </Button>
              )}
            </div>
          </div>
        </div>
      </form>

      <UnsavedChangesGuard dirty={dirty && !busy} />

      <ConfirmDialog
        open={confirmDelete}
        title={`Delete ${kind.label} “${loaded?.name ?? ""}”?`}
        confirmLabel={`Delete ${kind.label}`}
        danger
        busy={busy}
        onCancel={() => setConfirmDelete(false)}
        onConfirm={onDelete}
      >
        It is removed from the draft. Envoy keeps serving it until the draft is published.
      </ConfirmDialog>

      <ConfirmDialog
        open={conflict?.t === "changed"}
        title={`Changed by someone else`}
        confirmLabel="Overwrite their change"
        cancelLabel="Keep editing"
        danger
        busy={busy}
        onCancel={() => setConflict(undefined)}
        onConfirm={() => {
          if (conflict?.t !== "changed") return;
          setConflict(undefined);
          setLoaded(conflict.theirs);
          void write(conflict.values as F, "update", conflict.theirs);
        }}
      >
        <p>
          {Label} “{loaded?.name}” was saved by someone else after you opened it. Saving now
          replaces their version with yours.
        </p>
        <p className="mt-2">
          <button
            type="button"
            className="font-medium text-accent underline underline-offset-2"
            onClick={() => {
              if (conflict?.t !== "changed") return;
              setLoaded(conflict.theirs);
              form.reset(kind.formOf(conflict.theirs));
              setConflict(undefined);
              setSummary(undefined);
              toast.info(`Loaded the latest ${kind.label}; your edits were discarded`);
            }}
          >
            Discard my edits and load their version
          </button>
        </p>
      </ConfirmDialog>

      <ConfirmDialog
        open={conflict?.t === "deleted"}
        title="Deleted by someone else"
        confirmLabel={`Re-create ${kind.label}`}
        cancelLabel="Keep editing"
        busy={busy}
        onCancel={() => setConflict(undefined)}
        onConfirm={() => {
          if (conflict?.t !== "deleted") return;
          setConflict(undefined);
          void write(conflict.values as F, "create");
        }}
      >
        {Label} “{loaded?.name}” was deleted from the draft after you opened it. Re-create it with
        your version?
      </ConfirmDialog>
    </FormProvider>
  );
}
