"use client";

import { useQuery } from "@connectrpc/connect-query";
import {
  ConfigService,
  type NodeGroup,
  ResourceKind,
} from "@switchyard/proto/switchyard/v1/config_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import { useMemo } from "react";
import { useFormContext } from "react-hook-form";
import {
  CheckboxField,
  ListError,
  NumberField,
  TextAreaField,
  TextField,
} from "@/components/form/field";
import { FieldGrid, FormSection } from "@/components/form/section";
import { LayersIcon } from "@/components/ui/icons";
import type { NodeGroupForm } from "@/lib/node-group-form";
import { ConfigEditor } from "./config-editor";
import { ConfigList, deleteColumn, nameColumn } from "./config-list";
import { nodeGroupHref } from "./hrefs";
import { Loaded } from "./loaded";
import { useNodeGroupKind } from "./node-group-kind";
import { Chip } from "./states";
import { useConfigClient } from "./use-config-client";

type F = NodeGroupForm;

export function NodeGroupList() {
  const query = useQuery(ConfigService.method.listNodeGroups, {});
  const client = useConfigClient();
  const columns = useMemo<ColumnDef<NodeGroup, unknown>[]>(
    () => [
      nameColumn<NodeGroup>(nodeGroupHref),
      {
        id: "selects",
        header: "Selects",
        enableSorting: false,
        cell: ({ row }) => {
          const g = row.original;
          if (g.isDefault) return <Chip tone="accent">default: every other node</Chip>;
          const parts = [
            ...g.nodeIds.map((id) => `id ${id}`),
            ...g.nodeClusters.map((c) => `cluster ${c}`),
            ...Object.entries(g.nodeMetadata).map(([k, v]) => `${k}=${v}`),
          ];
          return <span className="font-mono text-xs">{parts.join(", ") || "nothing"}</span>;
        },
      },
      { id: "priority", header: "Priority", accessorFn: (g) => g.priority },
      {
        id: "gets",
        header: "Receives",
        enableSorting: false,
        cell: ({ row }) =>
          `${row.original.listeners.length} listeners, ${row.original.clusters.length} clusters`,
      },
      deleteColumn<NodeGroup>({
        label: "node group",
        remove: (name) => client.deleteNodeGroup({ name }),
      }),
    ],
    [client],
  );
  return (
    <ConfigList
      creates="node group"
      query={query}
      rowsOf={(data) => data.nodeGroups}
      title="Node groups"
      description="Which nodes receive which listeners and clusters."
      newHref={"/node-groups/new" as Route}
      newLabel="New node group"
      what="node groups"
      empty={{
        icon: <LayersIcon className="size-5" />,
        title: "No node groups",
        action: "Create a node group",
        children:
          "Without node groups every node receives every listener and cluster. Create one to give a set of nodes (by id, cluster or metadata) only what they need.",
      }}
      table={{
        caption: "Node groups",
        columns,
        searchPlaceholder: "Search node groups…",
        searchText: (g) =>
          [g.name, ...g.nodeIds, ...g.nodeClusters, ...g.listeners, ...g.clusters].join(" "),
      }}
    />
  );
}

function NodeGroupFields({ editing }: { editing: boolean }) {
  // Names only: summaries, not whole objects.
  const listeners = useQuery(ConfigService.method.listResources, { kind: ResourceKind.LISTENER });
  const clusters = useQuery(ConfigService.method.listResources, { kind: ResourceKind.CLUSTER });
  return (
    <>
      <FormSection
        title="Selector"
        description="A node joins the group when every non-empty selector matches it."
      >
        <FieldGrid>
          <TextField<F> name="name" label="Name" mono readOnly={editing} />
          <NumberField<F>
            name="priority"
            label="Priority"
            hint="Lower wins when a node matches several groups."
          />
          <CheckboxField<F>
            name="isDefault"
            label="Default group"
            hint="Takes every node no other group claims."
            className="self-end pb-1"
          />
          <TextField<F> name="nodeIds" label="Node ids" mono hint="Comma-separated." />
          <TextField<F> name="nodeClusters" label="Node clusters" mono hint="Comma-separated." />
          <TextAreaField<F>
            name="nodeMetadata"
            label="Node metadata"
            mono
            rows={2}
            hint="One key=value per line."
          />
        </FieldGrid>
      </FormSection>
      <FormSection
        title="Receives"
        description="The listeners and clusters sent to the group’s nodes."
      >
        <div className="grid gap-6 sm:grid-cols-2">
          <Choices
            name="listeners"
            title="Listeners"
            options={(listeners.data?.resources ?? []).map((l) => l.name)}
          />
          <Choices
            name="clusters"
            title="Clusters"
            options={(clusters.data?.resources ?? []).map((c) => c.name)}
          />
        </div>
      </FormSection>
      <FormSection
        title="Messages"
        description="xDS responses larger than the limit are split where the protocol allows; a publish whose listeners, clusters or single resource would not fit is refused."
      >
        <FieldGrid>
          <TextField<F>
            name="maxResponseBytes"
            label="Max response bytes"
            mono
            hint="Empty: the server’s limit (4 MiB by default). Raise it only when the group’s clients accept larger gRPC messages."
          />
        </FieldGrid>
      </FormSection>
    </>
  );
}

function Choices({
  name,
  title,
  options,
}: {
  name: "listeners" | "clusters";
  title: string;
  options: string[];
}) {
  const { register, getValues } = useFormContext<F>();
  const all = [...new Set([...options, ...getValues(name)])].sort();
  return (
    <fieldset className="flex flex-col gap-1.5">
      <legend className="mb-1 text-[13px] font-medium">{title}</legend>
      {all.length === 0 && <p className="text-fg-subtle">None stored yet.</p>}
      {all.map((option) => (
        <label key={option} className="flex items-center gap-2 font-mono text-[13px]">
          <input
            type="checkbox"
            value={option}
            className="size-4 accent-accent"
            {...register(name)}
          />
          {option}
        </label>
      ))}
      <ListError name={name} />
    </fieldset>
  );
}

export function NewNodeGroup() {
  const kind = useNodeGroupKind();
  return (
    <ConfigEditor kind={kind} original={undefined}>
      <NodeGroupFields editing={false} />
    </ConfigEditor>
  );
}

export function EditNodeGroup({ name }: { name: string }) {
  const kind = useNodeGroupKind();
  const query = useQuery(ConfigService.method.getNodeGroup, { name }, { staleTime: 0 });
  return (
    <Loaded query={query} what="node group" listHref={kind.listHref} listLabel={kind.listLabel}>
      {(group: NodeGroup) => (
        <ConfigEditor key={group.name} kind={kind} original={group}>
          <NodeGroupFields editing />
        </ConfigEditor>
      )}
    </Loaded>
  );
}
