-- Secrets (SDS): the values of generic secrets and session ticket keys, each sealed with
-- SWITCHYARD_SECRETS_KEY (never in the clear), empty for TLS certificates and validation contexts.

-- AlterTable
ALTER TABLE "Secret" ADD COLUMN     "values" TEXT[] DEFAULT ARRAY[]::TEXT[];
