/**
 * The routing folder's public surface, re-exported by the package's index.ts: the question
 * (routeRequest) and router_check_tool's test format (parseRouterCheckTests, checkRouteTest).
 */
export type {
  ChosenVirtualHost,
  DomainMatchKind,
  Forwarding,
  HeaderMutations,
  HeaderOperation,
  HostRewrite,
  HttpFilterInForce,
  MatchedRoute,
  Outcome,
  PathMatchKind,
  PathRewrite,
  PolicyInForce,
  RefusalCode,
  RouteAnswer,
  RouteMatchReason,
  RouteRefusal,
  RouteRequest,
  RouteResult,
  RouteVerdict,
  RuntimeFractionUse,
  Timeouts,
  WeightedClusterShare,
} from "./route-answer.js";
export { routeRequest } from "./route-request.js";
export {
  checkRouteTest,
  type RouteTestMismatch,
  type RouteTestResult,
  type RouteTestTarget,
} from "./router-check.js";
export {
  parseRouterCheckTests,
  ROUTER_CHECK_LIMITS,
  type RouterCheckExpectations,
  type RouterCheckInput,
  type RouterCheckParse,
  type RouterCheckProblem,
  type RouterCheckTest,
} from "./router-check-format.js";
