"use client";

import { useState } from "react";
import { toast } from "sonner";
import { isConfigKind, useWriteAccess } from "@/components/access/use-write-access";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { Button } from "@/components/ui/button";
import { saveFailureOf } from "@/lib/api-errors";
import { toastDeleted } from "./saved-toast";
import { useInvalidateConfig } from "./use-config-client";

/**
 * "Delete" in a list row, with a confirmation; `consequence` says what else breaks. Not shown to
 * someone who may not change the object (the editor says why).
 */
export function DeleteRowButton(props: {
  label: string;
  name: string;
  remove: (name: string) => Promise<unknown>;
  consequence?: string;
}) {
  return isConfigKind(props.label) ? <IfWritable {...props} /> : <DeleteRow {...props} />;
}

function IfWritable(props: Parameters<typeof DeleteRow>[0] & { label: string }) {
  const access = useWriteAccess(props.label as Parameters<typeof useWriteAccess>[0], props.name);
  return access.t === "allowed" ? <DeleteRow {...props} /> : null;
}

function DeleteRow({
  label,
  name,
  remove,
  consequence,
}: {
  label: string;
  name: string;
  remove: (name: string) => Promise<unknown>;
  consequence?: string;
}) {
  const [open, setOpen] = useState(false);
  // The dialog is mounted on the first "Delete", not with every row: a list page of 50 rows
  // rendered 50 closed dialogs as it loaded. It stays mounted, so closing it returns focus.
  const [asked, setAsked] = useState(false);
  const [busy, setBusy] = useState(false);
  const invalidate = useInvalidateConfig();
  const Label = label.charAt(0).toUpperCase() + label.slice(1);
  return (
    <>
      <Button
        variant="ghost"
        onClick={() => {
          setAsked(true);
          setOpen(true);
        }}
        aria-label={`Delete ${label} ${name}`}
      >
        Delete
      </Button>
      {asked && (
        <ConfirmDialog
          open={open}
          title={`Delete ${label} “${name}”?`}
          confirmLabel={`Delete ${label}`}
          danger
          busy={busy}
          onCancel={() => setOpen(false)}
          onConfirm={async () => {
            setBusy(true);
            try {
              await remove(name);
              await invalidate();
              toastDeleted(`${Label} “${name}”`);
            } catch (error) {
              toast.error(`Couldn’t delete ${label} “${name}”`, {
                description: saveFailureOf(error).message,
              });
            } finally {
              setBusy(false);
              setOpen(false);
            }
          }}
        >
          It is removed from the draft; Envoy keeps serving it until the draft is published.
          {consequence && <span className="mt-2 block">{consequence}</span>}
        </ConfirmDialog>
      )}
    </>
  );
}
