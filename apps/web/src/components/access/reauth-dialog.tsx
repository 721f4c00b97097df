"use client";

import { Code, ConnectError } from "@connectrpc/connect";
import { type FormEvent, useEffect, useId, useState } from "react";
import { useModal } from "@/components/form/confirm-dialog";
import { inputClass } from "@/components/form/field";
import { Button } from "@/components/ui/button";
import { AlertTriangleIcon } from "@/components/ui/icons";
import { setReauthPrompt } from "@/lib/reauth-prompt";
import { useAccessClient } from "./use-access-client";

/**
 * The question the console asks when the server refuses a privileged action for want of a recent
 * password (lib/reauth-prompt.ts): the password, entered with AccessService.Reauthenticate; the
 * refused call is then made again. A wrong password is said here, and may be typed again; Cancel
 * (or Escape) leaves the refusal to the form that made the call.
 */
export function ReauthDialog() {
  const client = useAccessClient();
  const titleId = useId();
  const inputId = useId();
  const errorId = useId();
  const [answer, setAnswer] = useState<((entered: boolean) => void) | undefined>();
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setReauthPrompt(
      () =>
        new Promise<boolean>((resolve) => {
          setPassword("");
          setError(undefined);
          setAnswer(() => resolve);
        }),
    );
    return () => setReauthPrompt(undefined);
  }, []);

  const open = answer !== undefined;
  const ref = useModal(open);

  const close = (entered: boolean) => {
    answer?.(entered);
    setAnswer(undefined);
    setPassword("");
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (password === "") {
      setError("Enter your password");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await client.reauthenticate({ password });
      close(true);
    } catch (e) {
      const refused = ConnectError.from(e);
      setError(
        refused.code === Code.PermissionDenied
          ? "That is not your password."
          : refused.rawMessage || "The password could not be checked.",
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        close(false);
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-xl border bg-surface p-0 text-fg shadow-xl backdrop:bg-black/40 backdrop:backdrop-blur-[2px]"
    >
      {/* Nothing inside while closed: its field would be one more "password" on every page. */}
      {open && (
        <form onSubmit={submit} noValidate>
          <div className="flex flex-col gap-3 px-5 pt-5 pb-4">
            <h2 id={titleId} className="text-base font-semibold">
              Re-enter your password
            </h2>
            <p className="text-fg-muted">
              Changing who may do what (accounts, roles, teams, ownership, API tokens) needs your
              password from the last 5 minutes, so that a session left open is not enough.
            </p>
            <div className="flex flex-col gap-1.5">
              <label htmlFor={inputId} className="text-[13px] font-medium">
                Your password
              </label>
              <input
                id={inputId}
                type="password"
                autoComplete="current-password"
                autoFocus
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                aria-invalid={error !== undefined}
                aria-describedby={error === undefined ? undefined : errorId}
                className={inputClass}
              />
              {error !== undefined && (
                <p
                  id={errorId}
                  role="alert"
                  className="flex items-start gap-1.5 text-xs font-medium text-danger"
                >
                  <AlertTriangleIcon className="mt-px size-3.5 shrink-0" />
                  {error}
                </p>
              )}
            </div>
          </div>
          <div className="flex justify-end gap-2 rounded-b-xl border-t bg-surface-muted px-5 py-3">
            <Button onClick={() => close(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" disabled={busy}>
              {busy ? "Checking…" : "Continue"}
            </Button>
          </div>
        </form>
      )}
    </dialog>
  );
}
