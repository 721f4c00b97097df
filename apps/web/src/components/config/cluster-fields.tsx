"use client";

import { type Cluster, SecretType } from "@switchyard/proto/switchyard/v1/config_pb";
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
import {
  type ClusterForm,
  type DiscoveryTypeName,
  discoveryTypes,
  healthStatuses,
  type LbPolicyName,
  lbPolicies,
  newEndpoint,
  newLocality,
  otherThresholds,
  outlierKeys,
} from "@/lib/cluster-form";
import { http2Source, http2SourceText, otherFields, transportSocketText } from "@/lib/envoy-facts";
import { SecretOptions } from "./secret-options";

/** One per value of the proto enum (cluster-form.ts discoveryTypes). */
const discoveryLabels: Record<DiscoveryTypeName, string> = {
  EDS: "EDS (endpoints pushed by Switchyard)",
  STATIC: "Static",
  STRICT_DNS: "Strict DNS",
  LOGICAL_DNS: "Logical DNS",
  ORIGINAL_DST: "Original destination",
  CUSTOM: "Extension: cluster_type (Envoy YAML)",
};

const lbLabels: Record<LbPolicyName, string> = {
  ROUND_ROBIN: "Round robin",
  LEAST_REQUEST: "Least request",
  RING_HASH: "Ring hash",
  RANDOM: "Random",
  MAGLEV: "Maglev",
  CLUSTER_PROVIDED: "Cluster provided",
  LOAD_BALANCING_POLICY_CONFIG: "Extension: load_balancing_policy (Envoy YAML)",
};

const healthCheckExample = [
  {
    timeout: "1s",
    interval: "5s",
    unhealthyThreshold: 3,
    healthyThreshold: 2,
    httpHealthCheck: { path: "/healthz" },
  },
];

type F = ClusterForm;

/** "Also set, kept as written: a, b." for fields a section does not edit; undefined for none. */
const alsoSet = (fields: readonly string[]) =>
  fields.length > 0 ? ` Also set in the Envoy fields, kept as written: ${fields.join(", ")}.` : "";

/**
 * The cluster form's sections (inside ConfigEditor's FormProvider). `stored` is the cluster being
 * edited: what the form shows beside a field is read from every Envoy field that decides it
 * (envoy-facts.ts), not only the one the field edits.
 */
export function ClusterFields({ editing, stored }: { editing: boolean; stored?: Cluster }) {
  const { setValue, getValues } = useFormContext<F>();
  const discovery = useWatch<F, "discoveryType">({ name: "discoveryType" });
  const secret = useWatch<F, "tlsSecretName">({ name: "tlsSecretName" });
  const extra = stored?.extra;
  const otherTls = secret?.trim() ? undefined : transportSocketText(extra?.transportSocket);
  const lrsElsewhere = extra?.lrsServer !== undefined;
  return (
    <>
      <FormSection
        title="General"
        description="How Envoy connects to this cluster and balances load."
      >
        <FieldGrid>
          <TextField<F>
            name="name"
            label="Name"
            mono
            readOnly={editing}
            hint={
              editing
                ? "The name identifies the cluster and cannot change."
                : "e.g. payments-backend"
            }
            placeholder="payments-backend"
          />
          <SelectField<F>
            name="discoveryType"
            label="Discovery type"
            options={discoveryTypes.map((v) => ({ value: v, label: discoveryLabels[v] }))}
          />
          <SelectField<F>
            name="lbPolicy"
            label="Load balancing policy"
            options={lbPolicies.map((v) => ({ value: v, label: lbLabels[v] }))}
          />
          <NumberField<F> name="connectTimeoutMs" label="Connect timeout (ms)" />
          <TextField<F>
            name="tlsSecretName"
            label="TLS secret"
            mono
            list="validation-context-secrets"
            hint={
              otherTls ??
              "A validation context on the Secrets page (upstream TLS over SDS); empty for plaintext."
            }
          />
          <SecretOptions id="validation-context-secrets" type={SecretType.VALIDATION_CONTEXT} />
          {discovery === "EDS" && (
            <TextField<F>
              name="edsServiceName"
              label="EDS service name"
              mono
              hint="Defaults to the cluster name."
            />
          )}
        </FieldGrid>
        <CheckboxField<F>
          name="http2"
          label="HTTP/2 to upstream"
          hint={http2SourceText(stored && http2Source(stored)) ?? "Required for gRPC backends."}
        />
        <CheckboxField<F>
          name="reportLoad"
          label="Report load"
          hint={
            lrsElsewhere
              ? "Load is reported to the lrs_server set in the Envoy fields (not Switchyard). Checking reports it to Switchyard instead."
              : "Proxies report this cluster’s requests and errors per locality and endpoint (LRS)."
          }
        />
      </FormSection>

      <Localities />

      <FormSection
        title="Circuit breakers"
        description={`Limits for the default priority. Empty fields use Envoy’s defaults (1024).${alsoSet(otherThresholds(stored?.circuitBreakers))}`}
      >
        <FieldGrid columns={4}>
          <NumberField<F> name="maxConnections" label="Max connections" />
          <NumberField<F> name="maxPendingRequests" label="Max pending requests" />
          <NumberField<F> name="maxRequests" label="Max requests" />
          <NumberField<F> name="maxRetries" label="Max retries" />
        </FieldGrid>
      </FormSection>

      <FormSection
        title="Outlier detection"
        description={
          otherFields(stored?.outlierDetection, outlierKeys).length > 0
            ? `Eject endpoints that keep failing.${alsoSet(otherFields(stored?.outlierDetection, outlierKeys))} Outlier detection stays on while they are.`
            : "Eject endpoints that keep failing. Leave empty to turn it off."
        }
      >
        <FieldGrid columns={4}>
          <NumberField<F> name="consecutive5xx" label="Consecutive 5xx" />
          <NumberField<F> name="ejectionIntervalMs" label="Interval (ms)" />
          <NumberField<F> name="baseEjectionTimeMs" label="Base ejection time (ms)" />
          <NumberField<F> name="maxEjectionPercent" label="Max ejection %" />
        </FieldGrid>
      </FormSection>

      <FormSection
        title="Health checks"
        description="Active health checks, as a JSON list of Envoy HealthCheck objects."
        actions={
          <Button
            onClick={() => {
              if (getValues("healthChecks").trim() !== "") return;
              setValue("healthChecks", JSON.stringify(healthCheckExample, null, 2), {
                shouldDirty: true,
              });
            }}
          >
            Insert HTTP check
          </Button>
        }
      >
        <TextAreaField<F>
          name="healthChecks"
          label="Health checks (JSON)"
          mono
          rows={6}
          placeholder='[{ "timeout": "1s", "interval": "5s", "httpHealthCheck": { "path": "/healthz" } }]'
        />
      </FormSection>
    </>
  );
}

function Localities() {
  const { control } = useFormContext<F>();
  const localities = useFieldArray<F, "localities">({ control, name: "localities" });
  return (
    <FormSection
      title="Endpoints"
      description="Where requests go, grouped by locality. Weights balance traffic between localities and endpoints."
      actions={<Button onClick={() => localities.append(newLocality())}>Add locality</Button>}
    >
      <ListError name="localities" />
      {localities.fields.length === 0 && (
        <p className="rounded-lg border border-dashed px-4 py-5 text-center text-fg-subtle">
          No endpoints: requests routed to this cluster fail. Add a locality to list its endpoints.
        </p>
      )}
      {localities.fields.map((field, index) => (
        <Locality
          key={field.id}
          index={index}
          count={localities.fields.length}
          onRemove={() => localities.remove(index)}
        />
      ))}
    </FormSection>
  );
}

function Locality({
  index,
  count,
  onRemove,
}: {
  index: number;
  count: number;
  onRemove: () => void;
}) {
  const { control } = useFormContext<F>();
  const endpoints = useFieldArray<F, `localities.${number}.endpoints`>({
    control,
    name: `localities.${index}.endpoints`,
  });
  const legend = `Locality ${index + 1}`;
  return (
    <fieldset className="rounded-lg border bg-surface-muted/50 p-4">
      <legend className="sr-only">{legend}</legend>
      <div className="mb-3 flex items-center justify-between">
        <p aria-hidden="true" className="text-[13px] font-semibold text-fg">
          {legend}
        </p>
        {count > 1 && (
          <Button variant="ghost" onClick={onRemove} aria-label={`Remove locality ${index + 1}`}>
            Remove
          </Button>
        )}
      </div>
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-5">
        <TextField<F> name={`localities.${index}.region`} label="Region" placeholder="any" />
        <TextField<F> name={`localities.${index}.zone`} label="Zone" placeholder="any" />
        <TextField<F> name={`localities.${index}.subZone`} label="Sub-zone" placeholder="any" />
        <NumberField<F> name={`localities.${index}.weight`} label="Locality weight" />
        <NumberField<F> name={`localities.${index}.priority`} label="Priority" />
      </div>

      <div className="mt-4 overflow-x-auto">
        <table className="w-full min-w-[640px] text-left">
          <caption className="sr-only">Endpoints of locality {index + 1}</caption>
          <thead className="text-xs text-fg-subtle">
            <tr>
              <th scope="col" className="pb-1.5 font-medium">
                Address
              </th>
              <th scope="col" className="w-28 pb-1.5 pl-2 font-medium">
                Port
              </th>
              <th scope="col" className="w-24 pb-1.5 pl-2 font-medium">
                Weight
              </th>
              <th scope="col" className="w-36 pb-1.5 pl-2 font-medium">
                Health
              </th>
              <th scope="col" className="w-20 pb-1.5">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {endpoints.fields.map((field, e) => {
              const base = `localities.${index}.endpoints.${e}` as const;
              const label = `Endpoint ${e + 1}`;
              return (
                <tr key={field.id} className="align-top">
                  <td className="py-1">
                    <TextField<F>
                      name={`${base}.address`}
                      label={`${label} address`}
                      hideLabel
                      mono
                      placeholder="10.0.0.12"
                    />
                  </td>
                  <td className="py-1 pl-2">
                    <NumberField<F>
                      name={`${base}.port`}
                      label={`${label} port`}
                      hideLabel
                      placeholder="8080"
                    />
                  </td>
                  <td className="py-1 pl-2">
                    <NumberField<F>
                      name={`${base}.weight`}
                      label={`${label} weight`}
                      hideLabel
                      placeholder="1"
                    />
                  </td>
                  <td className="py-1 pl-2">
                    <SelectField<F>
                      name={`${base}.healthStatus`}
                      label={`${label} health`}
                      hideLabel
                      options={healthStatuses.map((h) => ({ value: h, label: h.toLowerCase() }))}
                    />
                  </td>
                  <td className="py-1 pl-2 text-right">
                    <Button
                      variant="ghost"
                      onClick={() => endpoints.remove(e)}
                      aria-label={`Remove endpoint ${e + 1} of locality ${index + 1}`}
                    >
                      Remove
                    </Button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <ListError name={`localities.${index}.endpoints`} />
        <Button className="mt-2" onClick={() => endpoints.append(newEndpoint())}>
          Add endpoint
        </Button>
      </div>
    </fieldset>
  );
}
