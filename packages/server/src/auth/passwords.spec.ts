import { describe, expect, it } from "vitest";
import {
  checkPasswordPolicy,
  hashPassword,
  PASSWORD_MIN_LENGTH,
  verifyAgainstDummy,
  verifyPassword,
} from "./passwords.js";

describe("passwords", () => {
  it("are hashed with argon2id, a fresh salt each time", async () => {
    const [a, b] = await Promise.all([
      hashPassword("correct horse battery"),
      hashPassword("correct horse battery"),
    ]);
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(a).not.toBe(b);
  });

  it("verify the right password and no other", async () => {
    const hash = await hashPassword("correct horse battery");
    expect(await verifyPassword(hash, "correct horse battery")).toBe(true);
    expect(await verifyPassword(hash, "correct horse batterY")).toBe(false);
    expect(await verifyPassword(hash, "")).toBe(false);
  });

  it("a malformed stored hash is a mismatch, not an exception", async () => {
    expect(await verifyPassword("not-a-hash", "anything")).toBe(false);
  });

  it("an unknown user costs about one verification (the dummy), so timing does not reveal it", async () => {
    const hash = await hashPassword("correct horse battery");
    await verifyAgainstDummy("warm-up");
    const time = async (run: () => Promise<unknown>) => {
      const started = performance.now();
      for (let i = 0; i < 5; i++) await run();
      return performance.now() - started;
    };
    const real = await time(() => verifyPassword(hash, "wrong password"));
    const dummy = await time(() => verifyAgainstDummy("wrong password"));
    expect(await verifyAgainstDummy("switchyard-dummy-password-never-matches")).toBe(false);
    // Loose bounds (a loaded machine skews timings): a dummy that skipped argon2 would be ~0.01.
    expect(dummy / real).toBeGreaterThan(0.25);
    expect(dummy / real).toBeLessThan(4);
  });

  it(`a new password has at least ${PASSWORD_MIN_LENGTH} characters`, () => {
    expect(() => checkPasswordPolicy("short")).toThrow(/at least 12/);
    expect(() => checkPasswordPolicy("twelve chars")).not.toThrow();
  });
});
