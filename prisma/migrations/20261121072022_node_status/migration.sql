-- CreateTable
CREATE TABLE "XdsNode" (
    "id" TEXT NOT NULL,
    "cluster" TEXT NOT NULL,
    "locality" JSONB,
    "metadata" JSONB,
    "userAgentName" TEXT NOT NULL,
    "userAgentVersion" TEXT,
    "clientFeatures" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "replicaId" TEXT NOT NULL,
    "variant" TEXT NOT NULL,
    "remoteAddress" TEXT NOT NULL,
    "openStreams" INTEGER NOT NULL,
    "connectedSince" TIMESTAMP(3) NOT NULL,
    "disconnectedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "XdsNode_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "XdsNodeType" (
    "nodeId" TEXT NOT NULL,
    "typeUrl" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "staleAt" TIMESTAMP(3),
    "sentVersion" TEXT,
    "sentNonce" TEXT,
    "sentAt" TIMESTAMP(3),
    "ackedVersion" TEXT,
    "ackedNonce" TEXT,
    "ackedAt" TIMESTAMP(3),
    "nackErrorDetail" TEXT,
    "nackVersion" TEXT,
    "nackNonce" TEXT,
    "nackAt" TIMESTAMP(3),
    "held" JSONB NOT NULL DEFAULT '{}',
    "resourceVersionsKnown" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "XdsNodeType_pkey" PRIMARY KEY ("nodeId","typeUrl")
);

-- CreateTable
CREATE TABLE "XdsNodeEvent" (
    "id" BIGSERIAL NOT NULL,
    "nodeId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "replicaId" TEXT NOT NULL,
    "typeUrl" TEXT,
    "detail" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "XdsNodeEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "XdsNode_updatedAt_idx" ON "XdsNode"("updatedAt");

-- CreateIndex
CREATE INDEX "XdsNode_disconnectedAt_idx" ON "XdsNode"("disconnectedAt");

-- CreateIndex
CREATE INDEX "XdsNodeType_status_idx" ON "XdsNodeType"("status");

-- CreateIndex
CREATE INDEX "XdsNodeType_updatedAt_idx" ON "XdsNodeType"("updatedAt");

-- CreateIndex
CREATE INDEX "XdsNodeEvent_nodeId_id_idx" ON "XdsNodeEvent"("nodeId", "id");

-- CreateIndex
CREATE INDEX "XdsNodeEvent_at_idx" ON "XdsNodeEvent"("at");

-- AddForeignKey
ALTER TABLE "XdsNodeType" ADD CONSTRAINT "XdsNodeType_nodeId_fkey" FOREIGN KEY ("nodeId") REFERENCES "XdsNode"("id") ON DELETE CASCADE ON UPDATE CASCADE;
