-- AlterTable
ALTER TABLE "XdsNodeType" ADD COLUMN     "heldBack" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "nackRejected" TEXT[] DEFAULT ARRAY[]::TEXT[];
