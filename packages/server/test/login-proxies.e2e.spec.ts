import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_PASSWORD } from "../src/testing/auth.js";
import { type Harness, startHarness } from "../src/testing/harness.js";

/**
 * Issue 22, points 7 and 10: behind an ingress every login comes from the ingress's address, so
 * ~50 failures on made-up names locked every real user out; and the session cookie was never
 * Secure. The client's own address and scheme now come from X-Forwarded-For and
 * X-Forwarded-Proto, believed from the proxies named in SWITCHYARD_TRUSTED_PROXIES only.
 */
const LIMITS = {
  perUserIp: { points: 5, durationS: 900 },
  perIp: { points: 10, durationS: 900 },
};

/** A Connect JSON login with extra headers; answers the status and the Set-Cookie. */
async function login(
  harness: Harness,
  username: string,
  password: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; cookie: string | null }> {
  const response = await fetch(`${harness.baseUrl}/switchyard.v1.AccessService/Login`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ username, password }),
  });
  await response.text();
  return { status: response.status, cookie: response.headers.get("set-cookie") };
}

const spray = async (harness: Harness, headers: Record<string, string>) => {
  for (let i = 0; i < LIMITS.perIp.points + 2; i++) {
    await login(harness, `made-up-${i}`, "guess", headers);
  }
};

describe("logins through a trusted proxy", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({
      app: { loginLimits: LIMITS, trustedProxies: ["127.0.0.1", "::1"] },
    });
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("limits the client who sprays made-up names, not everyone behind the same proxy", async () => {
    const attacker = { "x-forwarded-for": "203.0.113.9" };
    await spray(harness, attacker);

    expect((await login(harness, "someone", "guess", attacker)).status).toBe(429);
    const colleague = await login(harness, "admin", ADMIN_PASSWORD, {
      "x-forwarded-for": "198.51.100.7",
    });
    expect(colleague.status).toBe(200);
  });

  it("believes the client address the proxy appended, not one the client wrote before it", async () => {
    // The attacker sends its own X-Forwarded-For; the proxy appends the real address.
    const forged = { "x-forwarded-for": "198.51.100.7, 203.0.113.9" };

    expect((await login(harness, "someone", "guess", forged)).status).toBe(429);
  });

  it("makes the session cookie Secure when the proxy says the client came over https", async () => {
    const https = await login(harness, "admin", ADMIN_PASSWORD, {
      "x-forwarded-for": "198.51.100.8",
      "x-forwarded-proto": "https",
    });
    const http = await login(harness, "admin", ADMIN_PASSWORD, {
      "x-forwarded-for": "198.51.100.8",
      "x-forwarded-proto": "http",
    });

    expect(https.cookie).toMatch(/;\s*Secure/);
    expect(http.cookie).not.toMatch(/Secure/);
  });
});

describe("logins with no trusted proxy", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await startHarness({ app: { loginLimits: LIMITS } });
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("ignores X-Forwarded-Proto: a client cannot ask for a Secure cookie on plain http, nor hide it", async () => {
    const answer = await login(harness, "admin", ADMIN_PASSWORD, { "x-forwarded-proto": "https" });

    expect(answer.status).toBe(200);
    expect(answer.cookie).not.toMatch(/Secure/);
  });

  it("ignores X-Forwarded-For: a client cannot escape its limit by naming another address", async () => {
    for (let i = 0; i < LIMITS.perIp.points + 2; i++) {
      await login(harness, `made-up-${i}`, "guess", { "x-forwarded-for": `203.0.113.${i}` });
    }

    const answer = await login(harness, "admin", ADMIN_PASSWORD, {
      "x-forwarded-for": "198.51.100.7",
    });
    expect(answer.status).toBe(429);
  });
});
