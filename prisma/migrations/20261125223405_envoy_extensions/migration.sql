-- Real Envoy configuration (issue 21): ORIGINAL_DST and extension clusters, load_balancing_policy,
-- the other route path matchers and actions, and filter chains with network filters (kept as
-- Envoy JSON) before, or instead of, the HTTP connection manager. Existing rows keep their
-- meaning: every existing chain is an HTTP chain with no other network filter.
-- (PostgreSQL 12+ adds enum values inside a transaction, and none is used in this one.)

-- AlterEnum
ALTER TYPE "DiscoveryType" ADD VALUE 'ORIGINAL_DST';
ALTER TYPE "DiscoveryType" ADD VALUE 'CUSTOM';

-- AlterEnum
ALTER TYPE "LbPolicy" ADD VALUE 'LOAD_BALANCING_POLICY_CONFIG';

-- AlterEnum
ALTER TYPE "RouteActionKind" ADD VALUE 'CLUSTER_HEADER';
ALTER TYPE "RouteActionKind" ADD VALUE 'CLUSTER_SPECIFIER_PLUGIN';
ALTER TYPE "RouteActionKind" ADD VALUE 'INLINE_CLUSTER_SPECIFIER_PLUGIN';
ALTER TYPE "RouteActionKind" ADD VALUE 'NON_FORWARDING';
ALTER TYPE "RouteActionKind" ADD VALUE 'FILTER_ACTION';

-- AlterEnum
ALTER TYPE "RouteMatchKind" ADD VALUE 'PATH_SEPARATED_PREFIX';
ALTER TYPE "RouteMatchKind" ADD VALUE 'CONNECT';
ALTER TYPE "RouteMatchKind" ADD VALUE 'PATH_MATCH_POLICY';

-- AlterTable
ALTER TABLE "FilterChain" ADD COLUMN     "networkFilters" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "networkOnly" BOOLEAN NOT NULL DEFAULT false;
