-- Whether a node subscribes to a type as a whole (wildcard) or by name: convergence compares the whole set only for wildcards (gRPC clients subscribe to CDS and LDS by name).
-- AlterTable
ALTER TABLE "XdsNodeType" ADD COLUMN     "wildcard" BOOLEAN NOT NULL DEFAULT true;
