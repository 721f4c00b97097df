-- AlterTable
ALTER TABLE "FilterChain" ADD COLUMN     "isDefault" BOOLEAN NOT NULL DEFAULT false;
