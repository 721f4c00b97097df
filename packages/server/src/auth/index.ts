/**
 * Identity, authorization and audit for Switchyard (issue 7). Self-contained: nothing here is
 * wired into the API, console or CLI yet. The contract for whoever wires it:
 *
 * At start (after migrate()):
 *   `ensureInitialAdmin(prisma, { password: env.SWITCHYARD_ADMIN_PASSWORD })`. When it answers
 *   `{ t: "created", generatedPassword }` with a password, print that password once to the console
 *   (never log it elsewhere). Create one `LoginLimiter` per process.
 *
 * On every API request (Connect interceptor / HTTP handler), before anything else:
 *   1. Credentials: `bearerToken(authorization)` → `resolveApiToken(prisma, secret)`, else
 *      `readSessionCookie(cookie)` → `resolveSession(prisma, secret)`. Null → Unauthenticated.
 *      Both read the database each call (no cache): revokes and disables bite on the next call.
 *   2. CSRF: for cookie-authenticated mutations, also require an `Origin` (or `Sec-Fetch-Site:
 *      same-origin`) matching the console; SameSite=Strict is the first line, not the only one.
 *      Token-authenticated calls carry no ambient credential and need no such check.
 *   3. Authorization: `assertAllowed(authorize(principal, action, resource))` on the server for
 *      every method, with the resource as stored (load the current object: never trust the
 *      client's idea of "before"). Route configuration writes and publish need
 *      `loadDomainOwnership(prisma)`; publish/rollback pass the draft's changes (DraftChange[]).
 *      A `{ t: "review" }` decision means "the team requires review": refuse or queue it.
 *   4. Clusters: when a member creates one, set `ownerTeamId` to the member's team (authorize is
 *      asked with that owner). Config writes must never change `ownerTeamId`; that is
 *      `manage` on `{ kind: "ownership" }` (admins).
 *
 * Login / logout:
 *   `login(prisma, limiter, { username, password, ip, userAgent })` → on `ok`, send
 *   `Set-Cookie: sessionCookie(session.secret, { secure: https, maxAgeS })`; on `limited`, answer
 *   ResourceExhausted with its message ("too many attempts, retry in N s"). It records the login
 *   audit events itself. Logout: `revokeSession(prisma, principal.via.sessionId)` and
 *   `clearSessionCookie`. On a password change or disable: `revokeUserSessions` (and
 *   `revokeUserApiTokens` on disable).
 *
 * Audit: `recordAudit(tx, { ...auditActor(principal), action, target, ip, detail: { diff } })`
 * inside the same transaction as the change (config writes, publish, rollback, token.create /
 * token.revoke, user and team changes). `listAudit` pages newest first; `exportAudit` streams
 * NDJSON or CSV.
 *
 * Rules: authorize.ts (its header and authorize.spec.ts). Ownership of virtual hosts by domain:
 * ownership.ts.
 */

export {
  type ActorKind,
  AUDIT_PAGE_MAX,
  type AuditAction,
  type AuditEvent,
  type AuditExportFormat,
  type AuditFilter,
  type AuditInput,
  type AuditPage,
  exportAudit,
  type ListAuditOptions,
  listAudit,
  recordAudit,
  recordAudits,
  SYSTEM_ACTOR,
} from "./audit.js";
export {
  type Action,
  assertAllowed,
  authorize,
  type ClusterChange,
  type Decision,
  type DraftChange,
  freshAuthentication,
  type ListenerChange,
  type NodeGroupChange,
  REAUTH_WINDOW_MS,
  type Resource,
  type RouteConfigurationChange,
  type RuntimeLayerChange,
  requiredScope,
  type SecretChange,
} from "./authorize.js";
export {
  clearSessionCookie,
  readSessionCookie,
  SESSION_COOKIE,
  type SessionCookieOptions,
  sessionCookie,
} from "./cookies.js";
export {
  type EnsureInitialAdminOptions,
  ensureInitialAdmin,
  INITIAL_ADMIN_USERNAME,
  type InitialAdmin,
} from "./initial-admin.js";
export { type LoginRequest, type LoginResult, login } from "./login.js";
export {
  DEFAULT_LOGIN_LIMITS,
  type LoginAllowance,
  type LoginLimit,
  LoginLimiter,
  type LoginLimits,
} from "./login-limiter.js";
export {
  type DomainOwner,
  type DomainOwnership,
  domainOwner,
  domainOwnership,
  loadDomainOwnership,
  normalizeDomainPattern,
  type RouteConfigurationChanges,
  routeConfigurationChanges,
  type VirtualHostChange,
  virtualHostOwner,
} from "./ownership.js";
export {
  checkPasswordPolicy,
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  verifyPassword,
} from "./passwords.js";
export {
  auditActor,
  type Credential,
  isTokenScope,
  type Principal,
  type PrincipalTeam,
  ROLES,
  type Role,
  TOKEN_SCOPES,
  type TokenScope,
} from "./principal.js";
export {
  type ReauthenticateRequest,
  type ReauthenticateResult,
  reauthenticate,
} from "./reauthenticate.js";
export {
  type CreatedSession,
  type CreateSessionOptions,
  createSession,
  DEFAULT_SESSION_TTL_MS,
  deleteExpiredSessions,
  markSessionAuthenticated,
  resolveSession,
  revokeSession,
  revokeUserSessions,
  type SessionClock,
} from "./sessions.js";
export {
  type ApiTokenInfo,
  bearerToken,
  type CreateApiTokenOptions,
  type CreatedApiToken,
  createApiToken,
  listApiTokens,
  resolveApiToken,
  revokeApiToken,
  revokeUserApiTokens,
  TOKEN_PREFIX,
} from "./tokens.js";
export {
  authenticate,
  type CreateUserOptions,
  checkUsername,
  createUser,
  normalizeUsername,
  setPassword,
} from "./users.js";
