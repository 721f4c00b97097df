-- The credential a node's latest xDS stream authenticated with (issue 7, xDS side).
ALTER TABLE "XdsNode" ADD COLUMN "authenticatedAs" TEXT NOT NULL DEFAULT '';
