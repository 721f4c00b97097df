/** Test fixtures of the auth module: principals, teams and a shared route configuration. */

import type { PrismaClient } from "@switchyard/db";
import type { RouteConfigurationSpec, VirtualHostSpec } from "@switchyard/snapshot";
import { routeSpec, virtualHostSpec } from "@switchyard/snapshot/fixtures";
import { type DomainOwnership, domainOwnership } from "./ownership.js";
import type { Principal, PrincipalRow, PrincipalTeam, Role, TokenScope } from "./principal.js";
import { createUser } from "./users.js";

export const PAYMENTS: PrincipalTeam = {
  id: "team-payments",
  name: "payments",
  requireReview: false,
};
export const ORDERS: PrincipalTeam = { id: "team-orders", name: "orders", requireReview: false };

/**
 * payments owns api.shop.example.com exactly and everything below pay.example.com; orders owns
 * everything below shop.example.com except that exact host (the exact pattern is more specific).
 */
export const OWNERSHIP: DomainOwnership = domainOwnership([
  { pattern: "api.shop.example.com", teamId: PAYMENTS.id, teamName: PAYMENTS.name },
  { pattern: "*.pay.example.com", teamId: PAYMENTS.id, teamName: PAYMENTS.name },
  { pattern: "*.shop.example.com", teamId: ORDERS.id, teamName: ORDERS.name },
]);

export function principal(role: Role, overrides: Partial<Omit<Principal, "role">> = {}): Principal {
  const username = overrides.username ?? role.toLowerCase();
  return {
    userId: `user-${username}`,
    username,
    role,
    team: role === "MEMBER" ? PAYMENTS : null,
    via: { t: "session", sessionId: `session-${username}`, authenticatedAt: new Date(T0) },
    ...overrides,
  };
}

/** The same principal calling with an API token of the given scopes. */
export function viaToken(who: Principal, scopes: readonly TokenScope[]): Principal {
  return { ...who, via: { t: "token", tokenId: "token-1", tokenName: "ci", scopes } };
}

export function vhost(
  name: string,
  domains: readonly string[] = [name],
  cluster = "backend",
): VirtualHostSpec {
  return virtualHostSpec(name, domains, [routeSpec(cluster)]);
}

/** edge-routes: one virtual host of payments, one of orders. */
export function edgeRoutes(
  virtualHosts: readonly VirtualHostSpec[] = [
    vhost("api.shop.example.com"),
    vhost("orders.shop.example.com"),
  ],
  extra: RouteConfigurationSpec["extra"] = {},
): RouteConfigurationSpec {
  return { name: "edge-routes", vhds: false, extra, virtualHosts };
}

/** The password every seeded account has. */
export const PASSWORD = "correct horse battery staple";

/** Creates a team and an account in a test database; the member's team is "payments". */
export async function seedUser(
  prisma: PrismaClient,
  username: string,
  role: Role = "MEMBER",
): Promise<PrincipalRow> {
  const team =
    role === "MEMBER"
      ? await prisma.team.upsert({
          where: { name: "payments" },
          create: { name: "payments" },
          update: {},
        })
      : null;
  return createUser(prisma, { username, password: PASSWORD, role, teamId: team?.id ?? null });
}

/** A fixed test time, and a clock that reads `ms` after it. */
export const T0 = Date.UTC(2026, 0, 1, 9);
export const at = (ms: number) => () => new Date(T0 + ms);
