"use client";

import { useQuery } from "@connectrpc/connect-query";
import { AccessService, Role } from "@switchyard/proto/switchyard/v1/access_pb";

import type { CallerRole } from "@/lib/nav-roles";

export type { CallerRole };

const ROLE_NAMES: Record<Role, CallerRole | undefined> = {
  [Role.UNSPECIFIED]: undefined,
  [Role.ADMIN]: "admin",
  [Role.MEMBER]: "member",
  [Role.VIEWER]: "viewer",
};

/**
 * The signed-in user (WhoAmI), for showing only what they may do. The server remains the
 * authority: it refuses anything the role does not allow, whatever the page shows.
 */
export function useCaller() {
  const query = useQuery(AccessService.method.whoAmI, {}, { staleTime: 60_000 });
  const user = query.data?.user;
  return {
    loading: query.isPending,
    username: user?.username,
    role: user === undefined ? undefined : ROLE_NAMES[user.role],
    /** The role as the API's enum (undefined until known). */
    roleValue: user?.role,
    team: query.data?.team,
    /** How proxies reach the server's xDS port (bootstrap hints). */
    server: query.data?.server,
  };
}
