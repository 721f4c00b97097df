-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "reportLoad" BOOLEAN NOT NULL DEFAULT false;
