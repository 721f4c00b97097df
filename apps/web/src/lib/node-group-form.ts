import { create } from "@bufbuild/protobuf";
import { type NodeGroup, NodeGroupSchema } from "@switchyard/proto/switchyard/v1/config_pb";
import { z } from "zod";
import { joinList, objectName, splitList } from "./form-values";
import type { FieldMap } from "./issue-path";

/** The node group form's values, and how they become a `switchyard.v1.NodeGroup` and back. */

/** The largest maxResponseBytes: what a uint32 field and a gRPC message length both hold. */
const MAX_RESPONSE_BYTES = 2_147_483_647;

export const nodeGroupFormSchema = z.object({
  name: objectName("node group"),
  isDefault: z.boolean(),
  priority: z.string().regex(/^-?\d+$/, "Enter a whole number"),
  nodeIds: z.string(),
  nodeClusters: z.string(),
  /** One `key=value` per line. */
  nodeMetadata: z.string().superRefine((text, ctx) => {
    for (const line of text.split("\n")) {
      if (line.trim() !== "" && !/^[^=]+=/.test(line)) {
        ctx.addIssue({
          code: "custom",
          message: `Write each entry as key=value: "${line.trim()}"`,
        });
        return;
      }
    }
  }),
  listeners: z.array(z.string()),
  clusters: z.array(z.string()),
  /** Empty: the server's limit. Bytes otherwise (the API checks the range, with the reason). */
  maxResponseBytes: z
    .string()
    .regex(/^\s*(\d{1,10})?\s*$/, "Enter a whole number of bytes, or leave it empty")
    .refine(
      (text) => text.trim() === "" || Number(text.trim()) <= MAX_RESPONSE_BYTES,
      `At most ${MAX_RESPONSE_BYTES} bytes (a gRPC message length is a 32-bit integer)`,
    ),
});

export type NodeGroupForm = z.infer<typeof nodeGroupFormSchema>;

export const emptyNodeGroupForm = (): NodeGroupForm => ({
  name: "",
  isDefault: false,
  priority: "0",
  nodeIds: "",
  nodeClusters: "",
  nodeMetadata: "",
  listeners: [],
  clusters: [],
  maxResponseBytes: "",
});

export function nodeGroupFormOf(group: NodeGroup): NodeGroupForm {
  return {
    name: group.name,
    isDefault: group.isDefault,
    priority: String(group.priority),
    nodeIds: joinList(group.nodeIds),
    nodeClusters: joinList(group.nodeClusters),
    nodeMetadata: Object.entries(group.nodeMetadata)
      .map(([k, v]) => `${k}=${v}`)
      .join("\n"),
    listeners: [...group.listeners],
    clusters: [...group.clusters],
    maxResponseBytes: group.maxResponseBytes === undefined ? "" : String(group.maxResponseBytes),
  };
}

export function nodeGroupOfForm(form: NodeGroupForm): NodeGroup {
  const metadata: Record<string, string> = {};
  for (const line of form.nodeMetadata.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) metadata[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return create(NodeGroupSchema, {
    name: form.name.trim(),
    isDefault: form.isDefault,
    priority: Number(form.priority),
    nodeIds: splitList(form.nodeIds),
    nodeClusters: splitList(form.nodeClusters),
    nodeMetadata: metadata,
    listeners: form.listeners,
    clusters: form.clusters,
    ...(form.maxResponseBytes.trim() === ""
      ? {}
      : { maxResponseBytes: Number(form.maxResponseBytes.trim()) }),
  });
}

export const nodeGroupFieldMap: FieldMap = {
  fields: [
    "name",
    "isDefault",
    "priority",
    "nodeIds",
    "nodeClusters",
    "nodeMetadata",
    "listeners",
    "clusters",
    "maxResponseBytes",
  ],
};
