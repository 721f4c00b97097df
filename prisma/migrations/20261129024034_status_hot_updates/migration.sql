-- DropIndex
DROP INDEX "XdsNode_updatedAt_idx";

-- DropIndex
DROP INDEX "XdsNodeType_heldKey_idx";

-- DropIndex
DROP INDEX "XdsNodeType_updatedAt_idx";

-- Room in each page for the next version of its rows: a fleet's ACKs rewrite one XdsNodeType row
-- and touch one XdsNode row per node, and with no index on what they change and free space in
-- the page, PostgreSQL makes those heap-only tuple (HOT) updates, touching no index. Pages
-- written from now on keep the room, and existing ones gain it as rows are rewritten.
ALTER TABLE "XdsNodeType" SET (fillfactor = 70);
ALTER TABLE "XdsNode" SET (fillfactor = 70);
