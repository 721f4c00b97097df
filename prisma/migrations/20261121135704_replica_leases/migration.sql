-- Replica leases: a replica that stops renewing its lease (killed, partitioned) has its nodes marked disconnected by the others (issue 8).
-- CreateTable
CREATE TABLE "XdsReplica" (
    "id" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "seenAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "XdsReplica_pkey" PRIMARY KEY ("id")
);
