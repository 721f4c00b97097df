"use client";

import { ConnectError } from "@connectrpc/connect";
import type { Rollout } from "@switchyard/proto/switchyard/v1/rollout_pb";
import { useMutation } from "@tanstack/react-query";
import { useId, useState } from "react";
import { toast } from "sonner";
import { useCaller } from "@/components/access/use-caller";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { inputClass } from "@/components/form/field";
import { Button } from "@/components/ui/button";
import { commandsOf } from "@/lib/rollouts";
import { useRolloutClient } from "./use-rollout-client";

type Command = "pause" | "resume" | "promote" | "abort" | "skip";

const done: Record<Command, string> = {
  pause: "paused",
  resume: "resumed",
  promote: "promoted",
  abort: "aborted: rolling back",
  skip: "promoted through every wave",
};

/**
 * Pause, Resume, Promote (the current wave ends as passed) and Abort (a rollback, confirmed
 * first), for admins and the rollout's author; admins also Skip the plan (every remaining wave at
 * once, with a reason for the audit log). The server decides (rollout-handlers.ts): a command
 * that does not apply any more is refused with its reason, shown here.
 */
export function RolloutControls({
  rollout,
  onChanged,
}: {
  rollout: Rollout;
  onChanged: (rollout: Rollout) => void;
}) {
  const client = useRolloutClient();
  const caller = useCaller();
  const [asking, setAsking] = useState<"abort" | "skip" | undefined>();
  const [reason, setReason] = useState("");
  const [reasonMissing, setReasonMissing] = useState(false);
  const reasonId = useId();
  const id = rollout.id;
  const command = useMutation<Rollout, ConnectError, Command>({
    mutationFn: async (name) => {
      try {
        switch (name) {
          case "pause":
            return await client.pauseRollout({ id });
          case "resume":
            return await client.resumeRollout({ id });
          case "promote":
            return await client.promoteRollout({ id });
          case "abort":
            return await client.abortRollout({ id });
          case "skip":
            return await client.promoteRollout({ id, all: true, reason: reason.trim() });
        }
      } catch (error) {
        throw ConnectError.from(error);
      }
    },
    onSuccess: (answer, name) => {
      setAsking(undefined);
      setReason("");
      toast.success(`Rollout ${id} ${done[name]}`);
      onChanged(answer);
    },
    onError: (error) => toast.error(error.rawMessage),
  });

  const may =
    caller.role === "admin" || (caller.role === "member" && caller.username === rollout.createdBy);
  const can = commandsOf(rollout);
  if (!may || !(can.pause || can.resume || can.promote || can.abort)) return null;
  const busy = command.isPending;
  const cancel = () => {
    setAsking(undefined);
    setReasonMissing(false);
    command.reset();
  };
  return (
    <div className="flex flex-col items-end gap-2">
      <div className="flex flex-wrap gap-2">
        {can.pause && (
          <Button onClick={() => command.mutate("pause")} disabled={busy}>
            Pause
          </Button>
        )}
        {can.resume && (
          <Button variant="primary" onClick={() => command.mutate("resume")} disabled={busy}>
            Resume
          </Button>
        )}
        {can.promote && (
          <Button onClick={() => command.mutate("promote")} disabled={busy}>
            Promote
          </Button>
        )}
        {can.abort && (
          <Button variant="danger" onClick={() => setAsking("abort")} disabled={busy}>
            Abort
          </Button>
        )}
        {caller.role === "admin" && can.promote && (
          <Button variant="ghost" onClick={() => setAsking("skip")} disabled={busy}>
            Skip plan
          </Button>
        )}
      </div>
      {command.error && asking === undefined && (
        <p role="alert" className="max-w-md text-right text-sm text-danger">
          {command.error.rawMessage}
        </p>
      )}
      <ConfirmDialog
        open={asking === "abort"}
        title={`Abort rollout ${id}?`}
        confirmLabel={busy ? "Aborting…" : "Abort and roll back"}
        danger
        busy={busy}
        onConfirm={() => command.mutate("abort")}
        onCancel={cancel}
      >
        <p>
          Every node that got version {rollout.toVersion.toString()} is served version{" "}
          {rollout.fromVersion.toString()} again, and the rollout ends as aborted. The draft keeps
          the change.
        </p>
        {command.error && (
          <p role="alert" className="mt-3 text-sm font-medium text-danger">
            {command.error.rawMessage}
          </p>
        )}
      </ConfirmDialog>
      <ConfirmDialog
        open={asking === "skip"}
        title={`Skip the plan of rollout ${id}?`}
        confirmLabel={busy ? "Promoting…" : "Promote every wave now"}
        danger
        busy={busy}
        onConfirm={() => {
          if (reason.trim() === "") setReasonMissing(true);
          else command.mutate("skip");
        }}
        onCancel={cancel}
      >
        <p>
          Every remaining wave is promoted at once: every node of group {rollout.group} is served
          version {rollout.toVersion.toString()}, without its gates. The reason is recorded in the
          audit log.
        </p>
        <label htmlFor={reasonId} className="mt-4 block text-sm font-medium text-fg">
          Reason
        </label>
        <input
          id={reasonId}
          value={reason}
          onChange={(event) => {
            setReason(event.target.value);
            setReasonMissing(false);
          }}
          aria-invalid={reasonMissing || undefined}
          placeholder="e.g. Incident 42: the fix must reach every proxy now"
          className={`${inputClass} mt-1 w-full`}
          disabled={busy}
        />
        {reasonMissing && (
          <p role="alert" className="mt-2 text-sm text-danger">
            Give a reason: it is recorded in the audit log.
          </p>
        )}
        {command.error && (
          <p role="alert" className="mt-3 text-sm font-medium text-danger">
            {command.error.rawMessage}
          </p>
        )}
      </ConfirmDialog>
    </div>
  );
}
