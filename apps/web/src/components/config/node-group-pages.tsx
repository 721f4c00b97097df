"use client";

import { useQuery } from "@connectrpc/connect-query";
import { ConfigService, type NodeGroup } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import Link from "next/link";
import { type ReactNode, useMemo } from "react";
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
import { primaryLink } from "./cluster-pages";
import { ConfigEditor } from "./config-editor";
import { ConfigTable } from "./config-table";
import { DeleteRowButton } from "./delete-row-button";
import { nodeGroupHref, useNodeGroupKind } from "./kinds";
import { Loaded } from "./loaded";
import { Chip, EmptyState, LoadError, PageHeader, TableSkeleton } from "./states";
import { useConfigClient } from "./use-config-client";

type F = NodeGroupForm;
const newHref = "/node-groups/new" as Route;

export function NodeGroupList() {
  const query = useQuery(ConfigService.method.listNodeGroups, {});
  const client = useConfigClient();
  const columns = useMemo<ColumnDef<NodeGroup, unknown>[]>(
    () => [
      {
        id: "name",
        header: "Name",
        accessorFn: (g) => g.name,
        cell: ({ row }) => (
          <Link
            href={nodeGroupHref(row.original.name)}
            className="font-mono text-[13px] text-fg hover:text-accent hover:underline"
          >
            {row.original.name}
          </Link>
        ),
      },
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
      {
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        enableSorting: false,
        cell: ({ row }) => (
          <div className="flex justify-end">
            <DeleteRowButton
              label="node group"
              name={row.original.name}
              remove={(name) => client.deleteNodeGroup({ name })}
            />
          </div>
        ),
      },
    ],
    [client],
  );
  let body: ReactNode;
  if (query.data) {
    body =
      query.data.nodeGroups.length === 0 ? (
        <EmptyState
          icon={<LayersIcon className="size-5" />}
          title="No node groups"
          action={
            <Link href={newHref} className={primaryLink}>
              Create a node group
            </Link>
          }
        >
          Without node groups every node receives every listener and cluster. Create one to give a
          set of nodes (by id, cluster or metadata) only what they need.
        </EmptyState>
      ) : (
        <ConfigTable
          caption="Node groups"
          data={query.data.nodeGroups}
          columns={columns}
          searchPlaceholder="Search node groups…"
          searchText={(g) =>
            [g.name, ...g.nodeIds, ...g.nodeClusters, ...g.listeners, ...g.clusters].join(" ")
          }
        />
      );
  } else if (query.error) {
    body = (
      <LoadError
        what="node groups"
        error={query.error}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  } else {
    body = <TableSkeleton label="node groups" />;
  }
  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="Node groups"
        description="Which nodes receive which listeners and clusters."
        actions={
          <Link href={newHref} className={primaryLink}>
            New node group
          </Link>
        }
      />
      {body}
    </div>
  );
}

function NodeGroupFields({ editing }: { editing: boolean }) {
  const listeners = useQuery(ConfigService.method.listListeners, {});
  const clusters = useQuery(ConfigService.method.listClusters, {});
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
            options={(listeners.data?.listeners ?? []).map((l) => l.name)}
          />
          <Choices
            name="clusters"
            title="Clusters"
            options={(clusters.data?.clusters ?? []).map((c) => c.name)}
          />
        </div>
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
