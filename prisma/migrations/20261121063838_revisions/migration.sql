-- AlterTable
ALTER TABLE "Cluster" ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Listener" ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "NodeGroup" ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "RouteConfiguration" ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 0;
