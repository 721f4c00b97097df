-- What a node holds of a type moves to content-addressed sets: nodes in sync share one row.
-- CreateTable
CREATE TABLE "XdsHeldSet" (
    "key" TEXT NOT NULL,
    "body" JSONB NOT NULL,
    "touchedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "XdsHeldSet_pkey" PRIMARY KEY ("key")
);

-- AlterTable (kept data: every non-empty "held" becomes a set keyed by the sha256 of its text)
ALTER TABLE "XdsNodeType" ADD COLUMN     "heldKey" TEXT NOT NULL DEFAULT '';

INSERT INTO "XdsHeldSet" ("key", "body")
SELECT DISTINCT encode(sha256(convert_to("held"::text, 'UTF8')), 'hex'), "held"
FROM "XdsNodeType"
WHERE "held" <> '{}'::jsonb
ON CONFLICT ("key") DO NOTHING;

UPDATE "XdsNodeType"
SET "heldKey" = encode(sha256(convert_to("held"::text, 'UTF8')), 'hex')
WHERE "held" <> '{}'::jsonb;

ALTER TABLE "XdsNodeType" DROP COLUMN "held";

-- CreateIndex
CREATE INDEX "XdsHeldSet_touchedAt_idx" ON "XdsHeldSet"("touchedAt");

-- CreateIndex
CREATE INDEX "XdsNodeType_heldKey_idx" ON "XdsNodeType"("heldKey");
