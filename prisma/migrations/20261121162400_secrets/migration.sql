-- Secrets (SDS): TLS certificates (private key sealed with SWITCHYARD_SECRETS_KEY) and validation contexts.
-- CreateTable
CREATE TABLE "Secret" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "certificateChain" TEXT NOT NULL DEFAULT '',
    "privateKey" TEXT,
    "trustedCa" TEXT NOT NULL DEFAULT '',
    "matchSubjectAltNames" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "revision" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Secret_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Secret_name_key" ON "Secret"("name");
