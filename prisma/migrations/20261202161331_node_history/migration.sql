-- CreateTable
CREATE TABLE "XdsNodeHistory" (
    "id" BIGSERIAL NOT NULL,
    "nodeId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "typeUrl" TEXT,
    "version" TEXT,
    "nonce" TEXT,
    "errorDetail" TEXT,

    CONSTRAINT "XdsNodeHistory_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "XdsNodeHistory_nodeId_at_idx" ON "XdsNodeHistory"("nodeId", "at");

-- CreateIndex
CREATE INDEX "XdsNodeHistory_at_idx" ON "XdsNodeHistory" USING BRIN ("at");
