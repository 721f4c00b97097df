"use client";

import { SecretType } from "@switchyard/proto/switchyard/v1/config_pb";
import { useId } from "react";
import { useFieldArray, useFormContext, useWatch } from "react-hook-form";
import {
  CheckboxField,
  ListError,
  NumberField,
  SelectField,
  TextAreaField,
  TextField,
} from "@/components/form/field";
import { FieldGrid, FormSection } from "@/components/form/section";
import { Button } from "@/components/ui/button";
import { Link } from "@/components/ui/link";
import { otherFields, transportSocketText } from "@/lib/envoy-facts";
import { type ListenerForm, newFilterChain } from "@/lib/listener-form";
import { routeConfigHref } from "./hrefs";
import { SecretOptions } from "./secret-options";

type F = ListenerForm;

/** The listener form: how it is reached, then its filter chains and HTTP connection manager. */
export function ListenerFields({
  editing,
  routeConfigNames,
}: {
  editing: boolean;
  routeConfigNames: readonly string[];
}) {
  const { control } = useFormContext<F>();
  const mode = useWatch<F, "mode">({ name: "mode" });
  const chains = useFieldArray<F, "filterChains">({ control, name: "filterChains" });
  const listId = useId();
  const shown = mode === "api" ? chains.fields.slice(0, 1) : chains.fields;
  return (
    <>
      <datalist id={listId}>
        {routeConfigNames.map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
      <SecretOptions id="tls-certificate-secrets" type={SecretType.TLS_CERTIFICATE} />
      <FormSection
        title="General"
        description="A gRPC api listener is what proxyless gRPC clients ask for by name (xds:///NAME); a socket listener is an address and port (or a Unix socket) Envoy binds; an internal listener binds nothing: clusters of the same proxy reach it as envoy://NAME."
      >
        <FieldGrid>
          <TextField<F>
            name="name"
            label="Name"
            mono
            readOnly={editing}
            hint={
              editing
                ? "The name identifies the listener and cannot change."
                : "gRPC clients dial xds:///NAME"
            }
            placeholder="payments"
          />
          <SelectField<F>
            name="mode"
            label="Listener type"
            options={[
              { value: "api", label: "gRPC api listener (proxyless)" },
              { value: "socket", label: "Socket (address and port, or Unix socket)" },
              { value: "internal", label: "Internal listener (envoy://NAME)" },
            ]}
          />
        </FieldGrid>
        {mode === "socket" && (
          <FieldGrid>
            <TextField<F>
              name="address"
              label="Address"
              mono
              placeholder="0.0.0.0"
              hint="An IP address, or unix:///path.sock for a Unix socket (no port)."
            />
            <NumberField<F> name="port" label="Port" placeholder="10000" />
          </FieldGrid>
        )}
      </FormSection>

      <ListError name="filterChains" />
      {shown.map((field, index) => (
        <FilterChain
          key={field.id}
          index={index}
          socket={mode !== "api"}
          routeList={listId}
          routeConfigNames={routeConfigNames}
          onRemove={
            mode !== "api" && chains.fields.length > 1 ? () => chains.remove(index) : undefined
          }
        />
      ))}
      {mode !== "api" && (
        <div>
          <Button onClick={() => chains.append(newFilterChain(routeConfigNames[0] ?? ""))}>
            Add filter chain
          </Button>
        </div>
      )}
      {mode === "api" && chains.fields.length === 0 && (
        <div>
          <Button onClick={() => chains.append(newFilterChain(routeConfigNames[0] ?? ""))}>
            Add the HTTP connection manager
          </Button>
        </div>
      )}
    </>
  );
}

function FilterChain({
  index,
  socket,
  routeList,
  routeConfigNames,
  onRemove,
}: {
  index: number;
  socket: boolean;
  routeList: string;
  routeConfigNames: readonly string[];
  onRemove: (() => void) | undefined;
}) {
  const base = `filterChains.${index}` as const;
  const routeName = useWatch<F, `filterChains.${number}.routeConfigName`>({
    name: `${base}.routeConfigName`,
  });
  const kind = useWatch<F, `filterChains.${number}.kind`>({ name: `${base}.kind` });
  const isDefault = useWatch<F, `filterChains.${number}.isDefault`>({ name: `${base}.isDefault` });
  // The chain's Envoy fields the form keeps as written: its transport socket when the model has
  // no SDS secret for it (a certificate from a file, inline, ...), its other match criteria.
  const extra = useWatch<F, `filterChains.${number}.extra`>({ name: `${base}.extra` });
  const secret = useWatch<F, `filterChains.${number}.tlsSecretName`>({
    name: `${base}.tlsSecretName`,
  });
  const otherTls = secret?.trim() ? undefined : transportSocketText(extra?.transportSocket);
  const otherMatch = otherFields(extra?.filterChainMatch, []);
  const http = kind === "http";
  const tcp = kind === "tcp";
  const known = routeName !== "" && routeConfigNames.includes(routeName?.trim() ?? "");
  return (
    <FormSection
      id={`filter-chain-${index}`}
      title={
        socket
          ? `Filter chain ${index + 1}${isDefault ? " (default)" : ""}`
          : "HTTP connection manager"
      }
      description={
        http
          ? "The route configuration this listener serves and its HTTP filters. The router filter is added last for you."
          : tcp
            ? "A TCP proxy: connections go to a cluster, or split across clusters by weight (TLS passthrough, SNI routing, databases). Its other Envoy fields are kept as written."
            : "Network filters only: redis_proxy, a contrib filter, ... as Envoy JSON. The last filter must end the chain."
      }
      actions={
        onRemove && (
          <Button
            variant="ghost"
            onClick={onRemove}
            aria-label={`Remove filter chain ${index + 1}`}
          >
            Remove
          </Button>
        )
      }
    >
      {socket && (
        <FieldGrid columns={2}>
          <SelectField<F>
            name={`${base}.kind`}
            label="Chain"
            options={[
              { value: "http", label: "HTTP connection manager" },
              { value: "tcp", label: "TCP proxy" },
              { value: "network", label: "Network filters only (Envoy JSON)" },
            ]}
          />
          <CheckboxField<F>
            name={`${base}.isDefault`}
            label="Default filter chain"
            hint="Takes the connections no other chain matches (Envoy's default_filter_chain); without one, Envoy closes them."
          />
        </FieldGrid>
      )}
      {socket && (
        <TextAreaField<F>
          name={`${base}.networkFilters`}
          label={
            http
              ? "Network filters before the HTTP connection manager (JSON)"
              : tcp
                ? "Network filters before the TCP proxy (JSON)"
                : "Network filters (JSON)"
          }
          mono
          rows={http || tcp ? 3 : 8}
          hint="Envoy Filter objects, in order, as proto3 JSON: { name, typedConfig: { @type, ... } }."
        />
      )}
      {http && (
        <FieldGrid>
          <SelectField<F>
            name={`${base}.routeSource`}
            label="Routes from"
            options={[
              { value: "rds", label: "RDS (route configuration by name)" },
              { value: "inline", label: "Inline (embedded in the listener)" },
            ]}
          />
          <div className="flex flex-col gap-1">
            <TextField<F>
              name={`${base}.routeConfigName`}
              label="Route configuration"
              mono
              list={routeList}
              placeholder="payments-routes"
              hint={
                routeName && !known
                  ? `No route configuration “${routeName}” in the draft: publishing fails until it exists.`
                  : undefined
              }
            />
            {known && (
              <Link
                href={routeConfigHref(routeName.trim())}
                className="text-xs font-medium text-accent hover:underline"
              >
                Open “{routeName.trim()}” →
              </Link>
            )}
          </div>
          <TextField<F> name={`${base}.statPrefix`} label="Stat prefix" mono />
        </FieldGrid>
      )}
      {tcp && <TcpProxyFields base={base} />}
      {socket && (
        <FieldGrid>
          <TextField<F> name={`${base}.name`} label="Filter chain name" mono />
          <TextField<F>
            name={`${base}.serverNames`}
            label="Server names (SNI)"
            mono
            hint={
              otherMatch.length > 0
                ? `Comma-separated. The chain also matches on ${otherMatch.join(", ")} (Envoy fields, kept as written).`
                : "Comma-separated; empty matches every connection."
            }
          />
          <TextField<F>
            name={`${base}.tlsSecretName`}
            label="TLS secret"
            mono
            list="tls-certificate-secrets"
            hint={
              otherTls ??
              "A TLS certificate on the Secrets page, served over SDS; empty for plaintext."
            }
          />
        </FieldGrid>
      )}
      {http && (
        <FieldGrid columns={2}>
          <TextAreaField<F>
            name={`${base}.httpFilters`}
            label="HTTP filters (JSON)"
            mono
            rows={4}
            hint="Envoy HttpFilter objects before the router, e.g. fault injection. Empty: router only."
          />
          <TextAreaField<F>
            name={`${base}.accessLog`}
            label="Access log (JSON)"
            mono
            rows={4}
            hint="Envoy AccessLog objects. Empty: no access log."
          />
        </FieldGrid>
      )}
    </FormSection>
  );
}

/** A chain's tcp_proxy: where connections go, its stat prefix, idle timeout and access log. */
function TcpProxyFields({ base }: { base: `filterChains.${number}` }) {
  const { control } = useFormContext<F>();
  const target = useWatch<F, `filterChains.${number}.tcp.target`>({ name: `${base}.tcp.target` });
  const split = useFieldArray<F, `filterChains.${number}.tcp.weightedClusters`>({
    control,
    name: `${base}.tcp.weightedClusters`,
  });
  return (
    <fieldset aria-label="TCP proxy" className="flex min-w-0 flex-col gap-4">
      <FieldGrid>
        <SelectField<F>
          name={`${base}.tcp.target`}
          label="Connections go to"
          options={[
            { value: "cluster", label: "One cluster" },
            { value: "weighted", label: "Clusters, split by weight" },
          ]}
        />
        {target === "cluster" ? (
          <TextField<F> name={`${base}.tcp.cluster`} label="Cluster" mono placeholder="db" />
        ) : (
          <div />
        )}
        <TextField<F>
          name={`${base}.tcp.statPrefix`}
          label="TCP stat prefix"
          mono
          hint="Envoy's stats for this proxy: tcp.PREFIX.*"
        />
        <NumberField<F>
          name={`${base}.tcp.idleTimeoutMs`}
          label="Idle timeout (ms)"
          hint="Empty: Envoy's default, one hour. 0 turns it off."
        />
      </FieldGrid>
      {target === "weighted" && (
        <div className="flex flex-col gap-2">
          <ListError name={`${base}.tcp.weightedClusters`} />
          {split.fields.map((field, i) => (
            <div key={field.id} className="grid grid-cols-[1fr_7rem_auto] items-start gap-2">
              <TextField<F>
                name={`${base}.tcp.weightedClusters.${i}.name`}
                label={`TCP split ${i + 1} cluster`}
                hideLabel
                mono
                placeholder="cluster"
              />
              <NumberField<F>
                name={`${base}.tcp.weightedClusters.${i}.weight`}
                label={`TCP split ${i + 1} weight`}
                hideLabel
                placeholder="weight"
              />
              <Button
                variant="ghost"
                onClick={() => split.remove(i)}
                aria-label={`Remove TCP split ${i + 1}`}
              >
                ✕
              </Button>
            </div>
          ))}
          <div>
            <Button
              variant="ghost"
              onClick={() => split.append({ name: "", weight: "1", extra: undefined })}
            >
              Add cluster to the TCP split
            </Button>
          </div>
        </div>
      )}
      <TextAreaField<F>
        name={`${base}.tcp.accessLog`}
        label="TCP access log (JSON)"
        mono
        rows={3}
        hint="Envoy AccessLog objects. Empty: no access log."
      />
    </fieldset>
  );
}
