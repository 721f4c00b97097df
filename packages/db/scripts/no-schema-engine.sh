#!/bin/sh
# Stands in for Prisma's native schema engine, which cannot be downloaded here (no network but npm).
# `prisma generate` only checks that this file exists; it never runs it. Whatever does run it
# (`prisma migrate ...`, `prisma db push`) must fail loudly instead of silently doing nothing: exit 1.
# The CLI parses stderr lines after the first as the engine's JSON log, hence the format.
message="Switchyard has no native Prisma schema engine. Migrations are applied by migrate() from @switchyard/db (the server runs it at start); author one with: npm run db:migration:new -- <name>. See packages/db/README.md."
echo "$message" >&2
printf '{"level":"ERROR","target":"schema_engine::logger","fields":{"message":"%s"}}\n' "$message" >&2
exit 1
