-- AlterTable
ALTER TABLE "NodeGroup" ADD COLUMN     "maxResponseBytes" BIGINT;
