"use client";

import { useQuery } from "@connectrpc/connect-query";
import { ConfigService, type RuntimeLayer } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import { useMemo } from "react";
import { useFieldArray, useFormContext, useWatch } from "react-hook-form";
import { ListError, SelectField, TextField } from "@/components/form/field";
import { FormSection } from "@/components/form/section";
import { Button } from "@/components/ui/button";
import { SlidersIcon } from "@/components/ui/icons";
import {
  newRuntimeEntry,
  RUNTIME_TYPES,
  type RuntimeLayerForm,
  runtimeValueText,
} from "@/lib/runtime-layer-form";
import { ConfigEditor } from "./config-editor";
import { ConfigList, deleteColumn, nameColumn, updatedColumn } from "./config-list";
import { runtimeLayerHref } from "./hrefs";
import { Loaded } from "./loaded";
import { useRuntimeLayerKind } from "./runtime-layer-kind";
import { useConfigClient } from "./use-config-client";

type F = RuntimeLayerForm;

/** At most a few entries per row of the list, then "+ n more". */
const SHOWN_ENTRIES = 4;

export function RuntimeLayerList() {
  const query = useQuery(ConfigService.method.listRuntimeLayers, {});
  const client = useConfigClient();
  const columns = useMemo<ColumnDef<RuntimeLayer, unknown>[]>(
    () => [
      nameColumn<RuntimeLayer>(runtimeLayerHref),
      {
        id: "entries",
        header: "Keys",
        enableSorting: false,
        cell: ({ row }) => {
          const entries = row.original.entries;
          if (entries.length === 0) return <span className="text-fg-subtle">no keys</span>;
          const rest = entries.length - SHOWN_ENTRIES;
          return (
            <span className="flex flex-col gap-0.5 font-mono text-xs">
              {entries.slice(0, SHOWN_ENTRIES).map((e) => (
                <span key={e.key}>
                  {e.key}: {runtimeValueText(e)}
                </span>
              ))}
              {rest > 0 && <span className="text-fg-subtle">+ {rest} more</span>}
            </span>
          );
        },
      },
      updatedColumn<RuntimeLayer>(),
      deleteColumn<RuntimeLayer>({
        label: "runtime layer",
        remove: (name) => client.deleteRuntimeLayer({ name }),
        consequence:
          "Proxies subscribed to it fall back to their other runtime layers once this is published.",
      }),
    ],
    [client],
  );
  return (
    <ConfigList
      creates="runtime layer"
      query={query}
      rowsOf={(data) => data.runtimeLayers}
      title="Runtime"
      description="Runtime layers (RTDS): runtime keys such as feature flags and fault percentages, sent to every proxy whose bootstrap names the layer."
      newHref={"/runtime/new" as Route}
      newLabel="New runtime layer"
      what="runtime layers"
      empty={{
        icon: <SlidersIcon className="size-5" />,
        title: "No runtime layers",
        action: "Create a runtime layer",
        children:
          "A runtime layer sets Envoy runtime keys without a restart. Proxies subscribe by name: switchyard bootstrap --runtime-layer NAME.",
      }}
      table={{
        caption: "Runtime layers",
        columns,
        searchPlaceholder: "Search by name or key…",
        searchText: (l) => [l.name, ...l.entries.map((e) => e.key)].join(" "),
      }}
    />
  );
}

function RuntimeFields({ editing }: { editing: boolean }) {
  const { control } = useFormContext<F>();
  const entries = useFieldArray<F, "entries">({ control, name: "entries" });
  return (
    <>
      <FormSection
        title="Layer"
        description="Proxies subscribe to a layer by this name (layered_runtime rtds_layer)."
      >
        <TextField<F> name="name" label="Name" mono readOnly={editing} />
      </FormSection>
      <FormSection
        title="Keys"
        description="Each key is a dotted runtime key; a later layer in a proxy's bootstrap overrides an earlier one."
        actions={<Button onClick={() => entries.append(newRuntimeEntry())}>Add key</Button>}
      >
        <ListError name="entries" />
        {entries.fields.length === 0 && (
          <p className="rounded-lg border border-dashed px-4 py-5 text-center text-fg-subtle">
            No keys: the layer sets nothing. Add a key.
          </p>
        )}
        {entries.fields.length > 0 && (
          <div className="overflow-x-auto">
            <table className="w-full min-w-[640px] text-left">
              <caption className="sr-only">Runtime keys</caption>
              <thead className="text-xs text-fg-subtle">
                <tr>
                  <th scope="col" className="pb-1.5 font-medium">
                    Key
                  </th>
                  <th scope="col" className="w-32 pb-1.5 pl-2 font-medium">
                    Type
                  </th>
                  <th scope="col" className="w-64 pb-1.5 pl-2 font-medium">
                    Value
                  </th>
                  <th scope="col" className="w-20 pb-1.5">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {entries.fields.map((field, index) => (
                  <EntryRow key={field.id} index={index} onRemove={() => entries.remove(index)} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </FormSection>
    </>
  );
}

function EntryRow({ index, onRemove }: { index: number; onRemove: () => void }) {
  const { control } = useFormContext<F>();
  const type = useWatch({ control, name: `entries.${index}.type` });
  const label = `Key ${index + 1}`;
  return (
    <tr className="align-top">
      <td className="py-1">
        <TextField<F>
          name={`entries.${index}.key`}
          label={`${label} name`}
          hideLabel
          mono
          placeholder="fault.http.abort.abort_percent"
        />
      </td>
      <td className="py-1 pl-2">
        <SelectField<F>
          name={`entries.${index}.type`}
          label={`${label} type`}
          hideLabel
          options={RUNTIME_TYPES.map((t) => ({ value: t, label: t }))}
        />
      </td>
      <td className="py-1 pl-2">
        {type === "boolean" ? (
          <SelectField<F>
            name={`entries.${index}.value`}
            label={`${label} value`}
            hideLabel
            options={[
              { value: "", label: "Choose…" },
              { value: "true", label: "true" },
              { value: "false", label: "false" },
            ]}
          />
        ) : (
          <TextField<F>
            name={`entries.${index}.value`}
            label={`${label} value`}
            hideLabel
            mono
            placeholder={type === "number" ? "10" : "text"}
          />
        )}
      </td>
      <td className="py-1 pl-2 text-right">
        <Button variant="ghost" onClick={onRemove} aria-label={`Remove key ${index + 1}`}>
          Remove
        </Button>
      </td>
    </tr>
  );
}

export function NewRuntimeLayer() {
  const kind = useRuntimeLayerKind();
  return (
    <ConfigEditor
      kind={kind}
      original={undefined}
      description="Saved to the draft; it goes live when the draft is published."
    >
      <RuntimeFields editing={false} />
    </ConfigEditor>
  );
}

export function EditRuntimeLayer({ name }: { name: string }) {
  const kind = useRuntimeLayerKind();
  const query = useQuery(ConfigService.method.getRuntimeLayer, { name }, { staleTime: 0 });
  return (
    <Loaded query={query} what="runtime layer" listHref={kind.listHref} listLabel={kind.listLabel}>
      {(layer: RuntimeLayer) => (
        <ConfigEditor key={layer.name} kind={kind} original={layer}>
          <RuntimeFields editing />
        </ConfigEditor>
      )}
    </Loaded>
  );
}
