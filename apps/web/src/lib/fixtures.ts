import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  ResourceKind,
  type ResourceSummary,
  ResourceSummarySchema,
} from "@switchyard/proto/switchyard/v1/config_pb";

/** A stored-object summary as ListResources returns it; every field defaults to something plain. */
export function summary(
  init: {
    kind?: ResourceKind;
    name?: string;
    description?: string;
    references?: string[];
    updated?: Date;
  } = {},
): ResourceSummary {
  return create(ResourceSummarySchema, {
    kind: init.kind ?? ResourceKind.CLUSTER,
    name: init.name ?? "backend",
    description: init.description ?? "",
    references: init.references ?? [],
    ...(init.updated ? { updateTime: timestampFromDate(init.updated) } : {}),
  });
}
