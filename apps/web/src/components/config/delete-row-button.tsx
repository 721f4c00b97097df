"use client";

import { createContext, type ReactNode, useContext, useMemo, useState } from "react";
import { toast } from "sonner";
import { isConfigKind, useWriter } from "@/components/access/use-write-access";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { Button } from "@/components/ui/button";
import { saveFailureOf } from "@/lib/api-errors";
import { type Writer, writeAccess } from "@/lib/write-access";
import { toastDeleted } from "./saved-toast";
import { useInvalidateConfig } from "./use-config-client";

/** What a row's "Delete" asks to delete; `consequence` says what else breaks. */
interface DeleteRequest {
  readonly label: string;
  readonly name: string;
  readonly remove: (name: string) => Promise<unknown>;
  readonly consequence?: string | undefined;
}

interface RowDeletesValue {
  readonly writer: Writer;
  readonly ask: (request: DeleteRequest) => void;
}

const RowDeletesContext = createContext<RowDeletesValue | undefined>(undefined);

/**
 * The "Delete" buttons of a list's rows (DeleteRowButton) share one confirmation dialog and one
 * reading of who is signed in: a row's button has no state and subscribes to nothing. Each row
 * had its own, and a list of 50 rows kept 50 watches of WhoAmI and of the query cache as it
 * loaded. The dialog is mounted on the first "Delete" and then stays, so closing it returns focus
 * to the button that opened it.
 */
export function RowDeletes({ children }: { children: ReactNode }) {
  const writer = useWriter();
  const invalidate = useInvalidateConfig();
  const [request, setRequest] = useState<DeleteRequest | undefined>();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const value = useMemo<RowDeletesValue>(
    () => ({
      writer,
      ask: (asked) => {
        setRequest(asked);
        setOpen(true);
      },
    }),
    [writer],
  );
  const confirm = async ({ label, name, remove }: DeleteRequest) => {
    setBusy(true);
    try {
      await remove(name);
      await invalidate();
      toastDeleted(label, name);
    } catch (error) {
      toast.error(`Couldn’t delete ${label} “${name}”`, {
        description: saveFailureOf(error).message,
      });
    } finally {
      setBusy(false);
      setOpen(false);
    }
  };
  return (
    <RowDeletesContext.Provider value={value}>
      {children}
      {request && (
        <ConfirmDialog
          open={open}
          title={`Delete ${request.label} “${request.name}”?`}
          confirmLabel={`Delete ${request.label}`}
          danger
          busy={busy}
          onCancel={() => setOpen(false)}
          onConfirm={() => void confirm(request)}
        >
          It is removed from the draft; Envoy keeps serving it until the draft is published.
          {request.consequence && <span className="mt-2 block">{request.consequence}</span>}
        </ConfirmDialog>
      )}
    </RowDeletesContext.Provider>
  );
}

/**
 * "Delete" in a list row (inside RowDeletes), with a confirmation. Not shown to someone who may
 * not change the object (the editor says why).
 */
export function DeleteRowButton(request: DeleteRequest) {
  const rows = useContext(RowDeletesContext);
  if (rows === undefined) throw new Error("DeleteRowButton is used outside a RowDeletes");
  const { label, name } = request;
  if (isConfigKind(label) && writeAccess(rows.writer, label, name).t !== "allowed") return null;
  return (
    <Button
      variant="ghost"
      onClick={() => rows.ask(request)}
      aria-label={`Delete ${label} ${name}`}
    >
      Delete
    </Button>
  );
}
