-- CreateTable
CREATE TABLE "Snapshot" (
    "version" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "author" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "previousVersion" INTEGER NOT NULL,
    "rolledBackFrom" INTEGER,
    "sources" JSONB NOT NULL,
    "groups" JSONB NOT NULL,
    "changes" JSONB NOT NULL,

    CONSTRAINT "Snapshot_pkey" PRIMARY KEY ("version")
);

-- CreateTable
CREATE TABLE "SnapshotBlob" (
    "key" TEXT NOT NULL,
    "body" BYTEA NOT NULL,
    "references" TEXT[] DEFAULT ARRAY[]::TEXT[],

    CONSTRAINT "SnapshotBlob_pkey" PRIMARY KEY ("key")
);
