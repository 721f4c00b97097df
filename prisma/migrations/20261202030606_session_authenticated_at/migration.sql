-- AlterTable
-- Hand-edited: existing sessions take their login time, so none of them counts as freshly
-- authenticated after the upgrade (a default of now() would make every one of them so).
ALTER TABLE "Session" ADD COLUMN     "authenticatedAt" TIMESTAMP(3);
UPDATE "Session" SET "authenticatedAt" = "createdAt";
ALTER TABLE "Session" ALTER COLUMN "authenticatedAt" SET NOT NULL;
