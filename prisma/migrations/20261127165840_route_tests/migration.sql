-- CreateTable
CREATE TABLE "RouteTest" (
    "name" TEXT NOT NULL,
    "teamId" UUID,
    "content" TEXT NOT NULL,
    "listener" TEXT NOT NULL DEFAULT '',
    "routeConfiguration" TEXT NOT NULL DEFAULT '',
    "author" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RouteTest_pkey" PRIMARY KEY ("name")
);

-- AddForeignKey
ALTER TABLE "RouteTest" ADD CONSTRAINT "RouteTest_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team"("id") ON DELETE CASCADE ON UPDATE CASCADE;
