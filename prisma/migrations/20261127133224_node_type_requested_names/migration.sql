-- AlterTable
ALTER TABLE "XdsNodeType" ADD COLUMN     "requestedKey" TEXT NOT NULL DEFAULT '';

-- CreateIndex
CREATE INDEX "XdsNodeType_requestedKey_idx" ON "XdsNodeType"("requestedKey");
