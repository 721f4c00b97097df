import { Code, ConnectError, type UnaryRequest, type UnaryResponse } from "@connectrpc/connect";
import { ReauthenticationRequiredSchema } from "@switchyard/proto/switchyard/v1/access_pb";
import { afterEach, describe, expect, it } from "vitest";
import { reauthenticationRequired, reauthInterceptor, setReauthPrompt } from "./reauth-prompt";

const METHOD = "switchyard.v1.AccessService/CreateUser";
const askAgain = () =>
  new ConnectError("re-enter your password: ...", Code.PermissionDenied, undefined, [
    { desc: ReauthenticationRequiredSchema, value: { method: METHOD, windowSeconds: 300 } },
  ]);
const request = { stream: false } as UnaryRequest;
const answer = {} as UnaryResponse;

/** A call refused with `errors`, in turn, then answered; counts its attempts. */
function server(...errors: Error[]) {
  const calls = { count: 0 };
  const next = async () => {
    const error = errors[calls.count++];
    if (error) throw error;
    return answer;
  };
  return { calls, call: () => reauthInterceptor(next as never)(request) };
}

afterEach(() => setReauthPrompt(undefined));

describe("the console's re-authentication prompt", () => {
  it("recognizes the refusal that asks for the password again, and no other", () => {
    expect(reauthenticationRequired(askAgain())).toBe(METHOD);
    expect(reauthenticationRequired(new ConnectError("no", Code.PermissionDenied))).toBe(undefined);
    expect(reauthenticationRequired(new Error("x"))).toBe(undefined);
  });

  it("asks for the password, then makes the refused call again", async () => {
    const asked: string[] = [];
    setReauthPrompt(async (method) => {
      asked.push(method);
      return true;
    });
    const { calls, call } = server(askAgain());

    expect(await call()).toBe(answer);

    expect(asked).toEqual([METHOD]);
    expect(calls.count).toBe(2);
  });

  it("keeps the refusal when the password is not entered (the form shows what it says)", async () => {
    setReauthPrompt(async () => false);
    const refusal = askAgain();
    const { calls, call } = server(refusal);

    await expect(call()).rejects.toBe(refusal);
    expect(calls.count).toBe(1);
  });

  it("asks nothing for any other refusal, nor when no prompt is mounted", async () => {
    let asked = 0;
    setReauthPrompt(async () => {
      asked++;
      return true;
    });
    const other = new ConnectError("only an admin may create accounts", Code.PermissionDenied);
    await expect(server(other).call()).rejects.toBe(other);
    expect(asked).toBe(0);

    setReauthPrompt(undefined);
    const refusal = askAgain();
    await expect(server(refusal).call()).rejects.toBe(refusal);
  });

  it("asks once for calls refused together, and retries each", async () => {
    let asked = 0;
    let enter: (entered: boolean) => void = () => {};
    setReauthPrompt(() => {
      asked++;
      return new Promise((resolve) => {
        enter = resolve;
      });
    });
    const one = server(askAgain());
    const two = server(askAgain());

    const both = Promise.all([one.call(), two.call()]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    enter(true);

    expect(await both).toEqual([answer, answer]);
    expect(asked).toBe(1);
  });

  it("asks again for a later refusal, once the first question is answered", async () => {
    let asked = 0;
    setReauthPrompt(async () => {
      asked++;
      return true;
    });
    await server(askAgain()).call();
    await server(askAgain()).call();
    expect(asked).toBe(2);
  });
});
