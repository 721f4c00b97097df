"use client";

import { useState } from "react";
import { toast } from "sonner";
import { messageOf } from "@/lib/access-errors";
import { useInvalidateAccess } from "./use-access-client";

/**
 * A change a page asks to confirm first (a removal, a deletion): `pending` is what the open
 * dialog would change, `run` makes the confirmed call, refreshes what the access pages show and
 * closes the dialog. A refusal is a toast, since the dialog's change has no field to show it at.
 */
export function useConfirmedChange<P>() {
  const invalidate = useInvalidateAccess();
  const [pending, setPending] = useState<P | undefined>();
  const [busy, setBusy] = useState(false);
  const run = async (what: string, call: () => Promise<unknown>, done: () => void) => {
    setBusy(true);
    try {
      await call();
      await invalidate();
      done();
    } catch (e) {
      toast.error(`Couldn’t ${what}`, { description: messageOf(e) });
    } finally {
      setBusy(false);
      setPending(undefined);
    }
  };
  return { pending, setPending, busy, run };
}
