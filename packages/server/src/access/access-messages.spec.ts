import { create, toBinary } from "@bufbuild/protobuf";
import { ListAuditEventsResponseSchema } from "@switchyard/proto/switchyard/v1/access_pb";
import { describe, expect, it } from "vitest";
import type { AuditEvent } from "../auth/index.js";
import { auditPageMessage } from "./access-messages.js";

/** Stored event `id` with a detail of about `bytes`. */
const event = (id: number, bytes: number): AuditEvent => ({
  id: String(id),
  at: new Date(0),
  actor: "admin",
  actorKind: "user",
  action: "publish",
  target: `snapshot/${id}`,
  ip: null,
  detail: { message: "x".repeat(bytes) },
});

/** Events `from` down to `to`, newest first, as listAudit pages them. */
const events = (from: number, to: number, bytes: number) =>
  Array.from({ length: from - to + 1 }, (_, i) => event(from - i, bytes));

describe("ListAuditEvents pages are bounded in bytes", () => {
  it("a page that fits is answered whole, with the store's next page token", () => {
    const answer = auditPageMessage({ events: events(10, 1, 100), nextCursor: null }, 10_000);
    expect(answer.events.map((e) => e.id)).toEqual(events(10, 1, 0).map((e) => e.id));
    expect(answer.nextPageToken).toBe("");
    expect(auditPageMessage({ events: events(10, 1, 100), nextCursor: "1" }, 10_000)).toMatchObject(
      { nextPageToken: "1" },
    );
  });

  it("a page past the bound stops before it, and its token continues after the last event sent", () => {
    const answer = auditPageMessage({ events: events(10, 1, 1_000), nextCursor: null }, 3_500);
    expect(answer.events.map((e) => e.id)).toEqual(["10", "9", "8"]);
    expect(answer.nextPageToken).toBe("8");
    const encoded = toBinary(
      ListAuditEventsResponseSchema,
      create(ListAuditEventsResponseSchema, answer),
    ).length;
    expect(encoded).toBeLessThanOrEqual(3_500 + 16);
  });

  it("an event larger than the bound is sent alone, so paging always goes on", () => {
    const answer = auditPageMessage({ events: events(3, 1, 5_000), nextCursor: null }, 1_000);
    expect(answer.events.map((e) => e.id)).toEqual(["3"]);
    expect(answer.nextPageToken).toBe("3");
  });
});
