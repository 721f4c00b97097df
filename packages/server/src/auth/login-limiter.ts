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
 * Counts failed logins and refuses attempts over the limits, until the window ends.
 *
 * The counters live in this process's memory: with N replicas an attacker gets up to N times the
 * limit, and a restart clears them. That is accepted here (the limits are small and argon2 is
 * slow); a shared store (RateLimiterPostgres of the same library) would make it exact. Limits are
 * per username + address, not per username alone, so nobody can lock an account out by failing on
 * purpose from elsewhere.
 */
export class LoginLimiter {
  readonly #perUserIp: RateLimiterMemory;
  readonly #perIp: RateLimiterMemory;
  readonly #limits: LoginLimits;

  constructor(limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
    this.#limits = limits;
    this.#perUserIp = new RateLimiterMemory({
      keyPrefix: "login-user-ip",
      ...limitOptions(limits.perUserIp),
    });
    this.#perIp = new RateLimiterMemory({ keyPrefix: "login-ip", ...limitOptions(limits.perIp) });
  }

  /** Whether an attempt may go ahead; does not count it. */
  async check(username: string, ip: string): Promise<LoginAllowance> {
    const [userIp, byIp] = await Promise.all([
      this.#perUserIp.get(userIpKey(username, ip)),
      this.#perIp.get(ip),
    ]);
    let waitMs = 0;
    if (userIp !== null && userIp.consumedPoints >= this.#limits.perUserIp.points)
      waitMs = Math.max(waitMs, userIp.msBeforeNext);
    if (byIp !== null && byIp.consumedPoints >= this.#limits.perIp.points)
      waitMs = Math.max(waitMs, byIp.msBeforeNext);
    return waitMs > 0
      ? { t: "limited", retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)) }
      : { t: "ok" };
  }

  /** Counts a failed attempt against both limits. */
  async recordFailure(username: string, ip: string): Promise<void> {
    await Promise.all([
      consume(this.#perUserIp, userIpKey(username, ip)),
      consume(this.#perIp, ip),
    ]);
  }

  /** A successful login clears its username + address counter (not the address's). */
  async recordSuccess(username: string, ip: string): Promise<void> {
    await this.#perUserIp.delete(userIpKey(username, ip));
  }
}

function limitOptions(limit: LoginLimit): { points: number; duration: number } {
  return { points: limit.points, duration: limit.durationS };
}

function userIpKey(username: string, ip: string): string {
  return `${username.trim().toLowerCase()}|${ip}`;
}

/** Over the limit, consume rejects with a RateLimiterRes: that is the expected case here. */
async function consume(limiter: RateLimiterMemory, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
  }
}
