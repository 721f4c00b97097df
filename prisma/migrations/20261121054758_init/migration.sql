-- CreateEnum
CREATE TYPE "DiscoveryType" AS ENUM ('EDS', 'STATIC', 'STRICT_DNS', 'LOGICAL_DNS');

-- CreateEnum
CREATE TYPE "LbPolicy" AS ENUM ('ROUND_ROBIN', 'LEAST_REQUEST', 'RING_HASH', 'RANDOM', 'MAGLEV', 'CLUSTER_PROVIDED');

-- CreateEnum
CREATE TYPE "HealthStatus" AS ENUM ('UNKNOWN', 'HEALTHY', 'UNHEALTHY', 'DRAINING', 'TIMEOUT', 'DEGRADED');

-- CreateEnum
CREATE TYPE "RouteMatchKind" AS ENUM ('PREFIX', 'PATH', 'SAFE_REGEX');

-- CreateEnum
CREATE TYPE "RouteActionKind" AS ENUM ('CLUSTER', 'WEIGHTED_CLUSTERS', 'REDIRECT', 'DIRECT_RESPONSE');

-- CreateTable
CREATE TABLE "Cluster" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "discoveryType" "DiscoveryType" NOT NULL DEFAULT 'EDS',
    "lbPolicy" "LbPolicy" NOT NULL DEFAULT 'ROUND_ROBIN',
    "connectTimeoutMs" INTEGER NOT NULL DEFAULT 5000,
    "http2" BOOLEAN NOT NULL DEFAULT false,
    "healthChecks" JSONB NOT NULL DEFAULT '[]',
    "circuitBreakers" JSONB,
    "outlierDetection" JSONB,
    "tlsSecretName" TEXT,
    "edsServiceName" TEXT,
    "extra" JSONB NOT NULL DEFAULT '{}',
    "assignmentExtra" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Cluster_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Locality" (
    "id" UUID NOT NULL,
    "clusterId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "region" TEXT NOT NULL DEFAULT '',
    "zone" TEXT NOT NULL DEFAULT '',
    "subZone" TEXT NOT NULL DEFAULT '',
    "weight" INTEGER,
    "priority" INTEGER NOT NULL DEFAULT 0,
    "extra" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "Locality_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Endpoint" (
    "id" UUID NOT NULL,
    "localityId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "address" TEXT NOT NULL,
    "port" INTEGER NOT NULL,
    "weight" INTEGER,
    "healthStatus" "HealthStatus" NOT NULL DEFAULT 'UNKNOWN',
    "extra" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "Endpoint_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Listener" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "apiListener" BOOLEAN NOT NULL DEFAULT false,
    "address" TEXT,
    "port" INTEGER,
    "extra" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Listener_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FilterChain" (
    "id" UUID NOT NULL,
    "listenerId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "serverNames" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "tlsSecretName" TEXT,
    "statPrefix" TEXT NOT NULL DEFAULT 'ingress_http',
    "rdsRouteConfigName" TEXT,
    "inlineRouteConfigName" TEXT,
    "httpFilters" JSONB NOT NULL DEFAULT '[]',
    "accessLog" JSONB NOT NULL DEFAULT '[]',
    "hcmExtra" JSONB NOT NULL DEFAULT '{}',
    "extra" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "FilterChain_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RouteConfiguration" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "extra" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RouteConfiguration_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "VirtualHost" (
    "id" UUID NOT NULL,
    "routeConfigurationId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "domains" TEXT[],
    "extra" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "VirtualHost_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Route" (
    "id" UUID NOT NULL,
    "virtualHostId" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "matchKind" "RouteMatchKind" NOT NULL DEFAULT 'PREFIX',
    "matchValue" TEXT NOT NULL DEFAULT '/',
    "caseSensitive" BOOLEAN NOT NULL DEFAULT true,
    "headers" JSONB NOT NULL DEFAULT '[]',
    "queryParameters" JSONB NOT NULL DEFAULT '[]',
    "actionKind" "RouteActionKind" NOT NULL DEFAULT 'CLUSTER',
    "cluster" TEXT,
    "weightedClusters" JSONB NOT NULL DEFAULT '[]',
    "redirect" JSONB,
    "directResponse" JSONB,
    "timeoutMs" INTEGER,
    "retryPolicy" JSONB,
    "prefixRewrite" TEXT,
    "extra" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "Route_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NodeGroup" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "priority" INTEGER NOT NULL DEFAULT 100,
    "nodeIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "nodeClusters" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "nodeMetadata" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "NodeGroup_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "NodeGroupListener" (
    "nodeGroupId" UUID NOT NULL,
    "listenerId" UUID NOT NULL,

    CONSTRAINT "NodeGroupListener_pkey" PRIMARY KEY ("nodeGroupId","listenerId")
);

-- CreateTable
CREATE TABLE "NodeGroupCluster" (
    "nodeGroupId" UUID NOT NULL,
    "clusterId" UUID NOT NULL,

    CONSTRAINT "NodeGroupCluster_pkey" PRIMARY KEY ("nodeGroupId","clusterId")
);

-- CreateIndex
CREATE UNIQUE INDEX "Cluster_name_key" ON "Cluster"("name");

-- CreateIndex
CREATE UNIQUE INDEX "Locality_clusterId_position_key" ON "Locality"("clusterId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "Endpoint_localityId_position_key" ON "Endpoint"("localityId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "Listener_name_key" ON "Listener"("name");

-- CreateIndex
CREATE UNIQUE INDEX "FilterChain_listenerId_position_key" ON "FilterChain"("listenerId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "RouteConfiguration_name_key" ON "RouteConfiguration"("name");

-- CreateIndex
CREATE UNIQUE INDEX "VirtualHost_routeConfigurationId_name_key" ON "VirtualHost"("routeConfigurationId", "name");

-- CreateIndex
CREATE UNIQUE INDEX "VirtualHost_routeConfigurationId_position_key" ON "VirtualHost"("routeConfigurationId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "Route_virtualHostId_position_key" ON "Route"("virtualHostId", "position");

-- CreateIndex
CREATE UNIQUE INDEX "NodeGroup_name_key" ON "NodeGroup"("name");

-- AddForeignKey
ALTER TABLE "Locality" ADD CONSTRAINT "Locality_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Endpoint" ADD CONSTRAINT "Endpoint_localityId_fkey" FOREIGN KEY ("localityId") REFERENCES "Locality"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FilterChain" ADD CONSTRAINT "FilterChain_listenerId_fkey" FOREIGN KEY ("listenerId") REFERENCES "Listener"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "VirtualHost" ADD CONSTRAINT "VirtualHost_routeConfigurationId_fkey" FOREIGN KEY ("routeConfigurationId") REFERENCES "RouteConfiguration"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Route" ADD CONSTRAINT "Route_virtualHostId_fkey" FOREIGN KEY ("virtualHostId") REFERENCES "VirtualHost"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NodeGroupListener" ADD CONSTRAINT "NodeGroupListener_nodeGroupId_fkey" FOREIGN KEY ("nodeGroupId") REFERENCES "NodeGroup"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NodeGroupListener" ADD CONSTRAINT "NodeGroupListener_listenerId_fkey" FOREIGN KEY ("listenerId") REFERENCES "Listener"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NodeGroupCluster" ADD CONSTRAINT "NodeGroupCluster_nodeGroupId_fkey" FOREIGN KEY ("nodeGroupId") REFERENCES "NodeGroup"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "NodeGroupCluster" ADD CONSTRAINT "NodeGroupCluster_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
