"use client";

import type { PublishResponse, SnapshotInfo } from "@switchyard/proto/switchyard/v1/config_pb";
import dynamic from "next/dynamic";
import { useState } from "react";
import { useCaller } from "@/components/access/use-caller";
import { Button } from "@/components/ui/button";
import { UndoIcon } from "@/components/ui/icons";

/** The dialog's code (its form and schema) loads when a user reaches for the button. */
const loadDialog = () => import("./rollback-dialog");
const RollbackDialog = dynamic(() => loadDialog().then((m) => m.RollbackDialog), { ssr: false });

/**
 * Rolls back to `target`: its content is published again as a new version, on top of `latest`
 * (the server refuses if another version was published meanwhile); the draft becomes that content
 * too. Asks first, in a dialog that says exactly what will happen (rollback-dialog.tsx).
 */
export function RollbackButton({
  target,
  latest,
  onRolledBack,
}: {
  target: SnapshotInfo;
  latest: SnapshotInfo;
  onRolledBack: (response: PublishResponse) => void;
}) {
  const [open, setOpen] = useState(false);
  // Each opening mounts a fresh dialog: an empty message, no earlier refusal.
  const [opened, setOpened] = useState(0);
  const caller = useCaller();

  // Viewers cannot roll back (the server refuses it too).
  if (caller.role === "viewer") return null;
  // Nor can a member whose team requires review (authorize.ts): an admin rolls back for them.
  if (caller.role === "member" && caller.team?.requireReview === true)
    return (
      <p className="max-w-56 text-right text-xs text-fg-subtle">
        Team {caller.team.name} requires an admin’s review: ask an admin to roll back to this
        version.
      </p>
    );
  return (
    <>
      <Button
        onClick={() => {
          setOpened((n) => n + 1);
          setOpen(true);
        }}
        onPointerEnter={() => void loadDialog()}
        onFocus={() => void loadDialog()}
      >
        <UndoIcon className="size-4" />
        Roll back to this version
      </Button>
      {opened > 0 && (
        <RollbackDialog
          key={opened}
          target={target}
          latest={latest}
          open={open}
          onClose={() => setOpen(false)}
          onRolledBack={onRolledBack}
        />
      )}
    </>
  );
}
