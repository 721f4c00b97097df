-- CreateTable
CREATE TABLE "LoadSample" (
    "bucket" TIMESTAMP(3) NOT NULL,
    "widthS" INTEGER NOT NULL,
    "nodeId" TEXT NOT NULL,
    "cluster" TEXT NOT NULL,
    "region" TEXT NOT NULL DEFAULT '',
    "zone" TEXT NOT NULL DEFAULT '',
    "subZone" TEXT NOT NULL DEFAULT '',
    "endpoint" TEXT NOT NULL DEFAULT '',
    "successful" BIGINT NOT NULL DEFAULT 0,
    "errored" BIGINT NOT NULL DEFAULT 0,
    "issued" BIGINT NOT NULL DEFAULT 0,
    "inProgress" BIGINT NOT NULL DEFAULT 0,
    "dropped" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "LoadSample_pkey" PRIMARY KEY ("bucket","widthS","nodeId","cluster","region","zone","subZone","endpoint")
);

-- CreateIndex
CREATE INDEX "LoadSample_cluster_bucket_idx" ON "LoadSample"("cluster", "bucket");

-- CreateIndex
CREATE INDEX "LoadSample_nodeId_bucket_idx" ON "LoadSample"("nodeId", "bucket");

-- CreateIndex
CREATE INDEX "LoadSample_widthS_bucket_idx" ON "LoadSample"("widthS", "bucket");
