import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

export interface LoginLimit {
  /** Failures allowed in the window. */
  readonly points: number;
  readonly durationS: number;
}

export interface LoginLimits {
  /** Failures per username from one address: stops guessing one account's password. */
  readonly perUserIp: LoginLimit;
  /** Failures per address over all usernames: stops spraying one password over many accounts. */
  readonly perIp: LoginLimit;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perUserIp: { points: 5, durationS: 15 * 60 },
  perIp: { points: 50, durationS: 15 * 60 },
};

export type LoginAllowance =
  | { readonly t: "ok" }
  | { readonly t: "limited"; readonly retryAfterS: number };

/**
 * Counts login attempts and refuses those over the limits, until the window ends.
 *
 * An attempt is counted before its password is checked (`begin`), and given back when the
 * password was right (`succeeded`): checking first and counting after let 40 concurrent attempts
 * all through a limit of 5, each one an argon2 verification.
 *
 * Limits are per username + client address, and per client address over all usernames; never per
 * username alone, so nobody can lock an account out by failing on purpose from elsewhere. Behind a
 * proxy every request comes from the proxy's address: name it in SWITCHYARD_TRUSTED_PROXIES so the
 * client's own address (X-Forwarded-For) is the key, or made-up names sent through the proxy lock
 * everyone out.
 *
 * The counters live in this process's memory: with N replicas an attacker gets up to N times the
 * limit, and a restart clears them. That is accepted here (the limits are small and argon2 is
 * slow); a shared store (RateLimiterPostgres of the same library) would make it exact.
 */
export class LoginLimiter {
  readonly #perUserIp: RateLimiterMemory;
  readonly #perIp: RateLimiterMemory;

  constructor(limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
    this.#perUserIp = new RateLimiterMemory({
      keyPrefix: "login-user-ip",
      ...limitOptions(limits.perUserIp),
    });
    this.#perIp = new RateLimiterMemory({ keyPrefix: "login-ip", ...limitOptions(limits.perIp) });
  }

  /**
   * Counts an attempt against both limits, before its password is checked; `limited` when that
   * takes either over, and the attempt must not be made (it then counts against neither).
   */
  async begin(username: string, ip: string): Promise<LoginAllowance> {
    const key = userIpKey(username, ip);
    const [userIp, byIp] = await Promise.all([
      consume(this.#perUserIp, key),
      consume(this.#perIp, ip),
    ]);
    if (userIp.t === "ok" && byIp.t === "ok") return { t: "ok" };
    // Not made: whichever limit still had room gets its point back.
    await Promise.all([
      userIp.t === "ok" ? this.#perUserIp.reward(key) : undefined,
      byIp.t === "ok" ? this.#perIp.reward(ip) : undefined,
    ]);
    const waitMs = Math.max(
      userIp.t === "limited" ? userIp.msBeforeNext : 0,
      byIp.t === "limited" ? byIp.msBeforeNext : 0,
    );
    return { t: "limited", retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /**
   * The attempt `begin` counted had the right password: its username + address counter starts
   * over, and the address gets its point back.
   */
  async succeeded(username: string, ip: string): Promise<void> {
    await Promise.all([this.#perUserIp.delete(userIpKey(username, ip)), this.#perIp.reward(ip)]);
  }
}

function limitOptions(limit: LoginLimit): { points: number; duration: number } {
  return { points: limit.points, duration: limit.durationS };
}

function userIpKey(username: string, ip: string): string {
  return `${username.trim().toLowerCase()}|${ip}`;
}

/** Over the limit, consume rejects with a RateLimiterRes: that is the expected case here. */
async function consume(
  limiter: RateLimiterMemory,
  key: string,
): Promise<{ readonly t: "ok" } | { readonly t: "limited"; readonly msBeforeNext: number }> {
  try {
    await limiter.consume(key);
    return { t: "ok" };
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    return { t: "limited", msBeforeNext: error.msBeforeNext };
  }
}
