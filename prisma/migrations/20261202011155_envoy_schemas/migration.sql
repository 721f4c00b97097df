-- CreateTable
CREATE TABLE "EnvoySchema" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "descriptorSet" BYTEA NOT NULL,
    "addedBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EnvoySchema_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "EnvoySchema_name_key" ON "EnvoySchema"("name");

-- CreateIndex
CREATE UNIQUE INDEX "EnvoySchema_sha256_key" ON "EnvoySchema"("sha256");
