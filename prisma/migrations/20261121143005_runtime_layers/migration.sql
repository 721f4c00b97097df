-- Runtime layers (RTDS): named sets of runtime keys served as envoy.service.runtime.v3.Runtime.
-- CreateTable
CREATE TABLE "RuntimeLayer" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "entries" JSONB NOT NULL DEFAULT '[]',
    "revision" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RuntimeLayer_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "RuntimeLayer_name_key" ON "RuntimeLayer"("name");
