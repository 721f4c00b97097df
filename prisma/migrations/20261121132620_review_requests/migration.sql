-- Review requests: a member asks an admin to publish the draft for a team that requires review (issue 7).
-- CreateEnum
CREATE TYPE "ReviewState" AS ENUM ('OPEN', 'APPROVED', 'REJECTED', 'WITHDRAWN');

-- CreateTable
CREATE TABLE "ReviewRequest" (
    "id" BIGSERIAL NOT NULL,
    "state" "ReviewState" NOT NULL DEFAULT 'OPEN',
    "requester" TEXT NOT NULL,
    "team" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "baseVersion" INTEGER NOT NULL,
    "draftRevision" TEXT NOT NULL,
    "changes" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "decidedBy" TEXT,
    "decidedAt" TIMESTAMP(3),
    "comment" TEXT NOT NULL DEFAULT '',
    "publishedVersion" INTEGER,

    CONSTRAINT "ReviewRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ReviewRequest_state_createdAt_idx" ON "ReviewRequest"("state", "createdAt");

-- CreateIndex
CREATE INDEX "ReviewRequest_requester_state_idx" ON "ReviewRequest"("requester", "state");
