import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { ReauthenticationRequiredSchema } from "@switchyard/proto/switchyard/v1/access_pb";

/*
 * Privileged actions (creating accounts, changing roles and teams, teams' review and domains,
 * cluster and secret owners, sharing, API tokens) need the caller's password entered in the last few minutes: the
 * server refuses them otherwise, with a ReauthenticationRequired detail. The console's transport
 * then asks for the password (the dialog that `setReauthPrompt` registers: ReauthDialog), and
 * once it is entered makes the refused call again, so every form gets this without knowing it.
 */

/** Asks for the password and enters it (AccessService.Reauthenticate); false: the user declined. */
export type ReauthPrompt = (method: string) => Promise<boolean>;

let prompt: ReauthPrompt | undefined;
/** The question being asked: concurrent refusals wait for the same answer. */
let asking: Promise<boolean> | undefined;

/** Registers the dialog that asks (undefined: none mounted; refusals then stand). */
export function setReauthPrompt(next: ReauthPrompt | undefined): void {
  prompt = next;
}

/** The refused method, when `error` asks for the password again; undefined otherwise. */
export function reauthenticationRequired(error: unknown): string | undefined {
  if (!(error instanceof ConnectError)) return undefined;
  return error.findDetails(ReauthenticationRequiredSchema)[0]?.method;
}

function ask(method: string): Promise<boolean> {
  if (prompt === undefined) return Promise.resolve(false);
  asking ??= prompt(method).finally(() => {
    asking = undefined;
  });
  return asking;
}

/**
 * Asks for the password when a call is refused for it, then makes the call once more; the
 * refusal stands when the user declines (the form shows its message, which says how).
 */
export const reauthInterceptor: Interceptor = (next) => async (request) => {
  try {
    return await next(request);
  } catch (error) {
    const method = reauthenticationRequired(error);
    if (method === undefined || request.stream || !(await ask(method))) throw error;
    return next(request);
  }
};
