-- AlterTable
ALTER TABLE "Team" ADD COLUMN     "requireRollout" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "RolloutPlan" (
    "name" TEXT NOT NULL,
    "document" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT NOT NULL,

    CONSTRAINT "RolloutPlan_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "RolloutSettings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "defaultPlanName" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT NOT NULL,

    CONSTRAINT "RolloutSettings_pkey" PRIMARY KEY ("id")
);

-- AddForeignKey
ALTER TABLE "RolloutSettings" ADD CONSTRAINT "RolloutSettings_defaultPlanName_fkey" FOREIGN KEY ("defaultPlanName") REFERENCES "RolloutPlan"("name") ON DELETE RESTRICT ON UPDATE CASCADE;
