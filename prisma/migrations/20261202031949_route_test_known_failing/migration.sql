-- AlterTable
ALTER TABLE "RouteTest" ADD COLUMN     "knownFailing" TEXT[] DEFAULT ARRAY[]::TEXT[];
