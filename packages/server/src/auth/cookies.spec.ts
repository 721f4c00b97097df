import { describe, expect, it } from "vitest";
import { clearSessionCookie, readSessionCookie, sessionCookie } from "./cookies.js";

describe("session cookie", () => {
  it("is HttpOnly, SameSite=Strict, Path=/, with the session's lifetime", () => {
    expect(sessionCookie("abc_-1", { secure: false, maxAgeS: 43_200 })).toBe(
      "switchyard_session=abc_-1; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict",
    );
  });

  it("is Secure when the request came over https", () => {
    expect(sessionCookie("abc", { secure: true, maxAgeS: 60 })).toMatch(/; Secure$/);
  });

  it("logout clears it with Max-Age=0", () => {
    expect(clearSessionCookie({ secure: true })).toBe(
      "switchyard_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure",
    );
  });

  it("is read from a Cookie header among others", () => {
    expect(readSessionCookie("theme=dark; switchyard_session=s3cret; x=1")).toBe("s3cret");
    expect(readSessionCookie("theme=dark")).toBeNull();
    expect(readSessionCookie("switchyard_session=")).toBeNull();
    expect(readSessionCookie(undefined)).toBeNull();
  });
});
