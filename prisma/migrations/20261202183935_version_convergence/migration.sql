-- CreateTable
CREATE TABLE "XdsVersionConvergence" (
    "version" INTEGER NOT NULL,
    "replicaId" TEXT NOT NULL,
    "publishedAt" TIMESTAMP(3) NOT NULL,
    "targeted" INTEGER NOT NULL,
    "convergedMs" INTEGER[],
    "nacked" INTEGER NOT NULL,
    "nackedEver" INTEGER NOT NULL,
    "firstNackAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "XdsVersionConvergence_pkey" PRIMARY KEY ("version","replicaId")
);

-- CreateIndex
CREATE INDEX "XdsVersionConvergence_publishedAt_idx" ON "XdsVersionConvergence"("publishedAt");
