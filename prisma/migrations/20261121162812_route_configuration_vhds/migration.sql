-- On-demand virtual hosts (VHDS) per route configuration, off for every existing one.
-- AlterTable
ALTER TABLE "RouteConfiguration" ADD COLUMN     "vhds" BOOLEAN NOT NULL DEFAULT false;
