"use client";

/**
 * The fields of the route configuration form (lib/route-config-form.ts): virtual hosts, their
 * routes, and each route's match, header and query matchers, action and weighted clusters. Long
 * because the parts nest as the form does and address it by path (`RouteBase`), so the file
 * follows the form's shape from the top down.
 */
import { useEffect, useId, useState } from "react";
import { get, useFieldArray, useFormContext, useFormState, useWatch } from "react-hook-form";
import { useCaller } from "@/components/access/use-caller";
import { useWriter } from "@/components/access/use-write-access";
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
  actionKinds,
  describeMatch,
  forwardingActions,
  matcherKinds,
  matchKinds,
  newMatcher,
  newRoute,
  newVirtualHost,
  type RouteConfigForm,
  redirectCodeLabels,
  redirectCodes,
  splitPercentages,
} from "@/lib/route-config-form";
import { virtualHostAccess, type Writer } from "@/lib/write-access";
import { Chip } from "./states";

type F = RouteConfigForm;

/**
 * A virtual host with more routes than this opens as compact rows (match → action), each route's
 * editor mounted only when expanded: a 100-route configuration stays fast to open and to scan.
 */
export const OPEN_ROUTES_UP_TO = 10;

const matchLabels: Record<(typeof matchKinds)[number], string> = {
  PREFIX: "Path prefix",
  PATH: "Exact path",
  SAFE_REGEX: "Regular expression (RE2)",
  PATH_SEPARATED_PREFIX: "Path prefix, whole segments",
  CONNECT: "CONNECT requests (Envoy YAML)",
  PATH_MATCH_POLICY: "Path template (Envoy YAML)",
};
const actionLabels: Record<(typeof actionKinds)[number], string> = {
  CLUSTER: "Route to a cluster",
  WEIGHTED_CLUSTERS: "Split across clusters",
  REDIRECT: "Redirect",
  DIRECT_RESPONSE: "Respond directly",
  CLUSTER_HEADER: "Route to the cluster a header names",
  CLUSTER_SPECIFIER_PLUGIN: "Cluster specifier plugin (Envoy YAML)",
  INLINE_CLUSTER_SPECIFIER_PLUGIN: "Inline cluster specifier plugin (Envoy YAML)",
  NON_FORWARDING: "Leave to the filters (non-forwarding)",
  FILTER_ACTION: "Filter action (Envoy YAML)",
};
/** Kinds whose Envoy config the form does not edit: it is kept, and edited in the YAML view. */
const inYaml: ReadonlySet<string> = new Set([
  "CONNECT",
  "PATH_MATCH_POLICY",
  "CLUSTER_SPECIFIER_PLUGIN",
  "INLINE_CLUSTER_SPECIFIER_PLUGIN",
  "FILTER_ACTION",
]);
const matcherLabels: Record<(typeof matcherKinds)[number], string> = {
  exact: "equals",
  prefix: "starts with",
  suffix: "ends with",
  contains: "contains",
  regex: "matches regex",
  present: "is present",
};

/**
 * The route configuration form: its name, then each virtual host and its ordered routes. Each
 * virtual host shows its owner team; a member changes only their team's (and new ones), the others
 * read-only with the reason (lib/write-access.ts, virtualHostAccess).
 */
export function RouteConfigFields({
  editing,
  clusterNames,
}: {
  editing: boolean;
  clusterNames: readonly string[];
}) {
  const { control } = useFormContext<F>();
  const hosts = useFieldArray<F, "virtualHosts">({ control, name: "virtualHosts" });
  const listId = useId();
  const writer = useWriter();
  // A member's team's own patterns: every domain they name is the team's, so a new virtual host
  // starts with the first, and each of theirs lists them (the matching itself is the server's).
  const caller = useCaller();
  const team =
    caller.role === "member" && caller.team
      ? { name: caller.team.name, domains: caller.team.domains }
      : undefined;
  return (
    <>
      <datalist id={listId}>
        {clusterNames.map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
      <FormSection
        title="General"
        description="Listeners refer to a route configuration by its name."
      >
        <FieldGrid>
          <TextField<F>
            name="name"
            label="Name"
            mono
            readOnly={editing}
            hint={editing ? "The name identifies it and cannot change." : "e.g. ingress-routes"}
            placeholder="ingress-routes"
          />
          <CheckboxField<F>
            name="vhds"
            label="On-demand virtual hosts (VHDS)"
            className="self-end pb-1.5"
            hint="Proxies get these virtual hosts one host at a time, when a request for it arrives, over Delta xDS (their ADS must be DELTA_GRPC). Listeners must load it over RDS."
          />
        </FieldGrid>
      </FormSection>
      {hosts.fields.map((field, index) => (
        <VirtualHost
          key={field.id}
          index={index}
          clusterList={listId}
          clusterNames={clusterNames}
          writer={writer}
          team={team}
          onRemove={hosts.fields.length > 1 ? () => hosts.remove(index) : undefined}
        />
      ))}
      <div>
        <Button
          onClick={() =>
            hosts.append(newVirtualHost(`host-${hosts.fields.length + 1}`, team?.domains[0] ?? "*"))
          }
        >
          Add virtual host
        </Button>
      </div>
    </>
  );
}

/** Who owns a virtual host as stored: the caller's team, another, or none. */
function OwnerBadge({ owner, mine }: { owner: string; mine: boolean }) {
  return owner === "" ? (
    <Chip tone="warning">Owned by no team</Chip>
  ) : (
    <Chip tone={mine ? "accent" : "muted"}>Owned by {owner}</Chip>
  );
}

function domainsHint(team: { name: string; domains: readonly string[] } | undefined): string {
  const syntax = "Comma-separated; * matches every host, *.example.com a suffix.";
  if (team === undefined) return syntax;
  return team.domains.length === 0
    ? `${syntax} Team ${team.name} owns no domains yet: an admin assigns them.`
    : `${syntax} Team ${team.name} owns ${team.domains.join(", ")}.`;
}

function VirtualHost({
  index,
  clusterList,
  clusterNames,
  writer,
  team,
  onRemove,
}: {
  index: number;
  clusterList: string;
  clusterNames: readonly string[];
  writer: Writer;
  /** The caller's team when they are a member. */
  team: { name: string; domains: readonly string[] } | undefined;
  onRemove: (() => void) | undefined;
}) {
  const { control } = useFormContext<F>();
  const routes = useFieldArray<F, `virtualHosts.${number}.routes`>({
    control,
    name: `virtualHosts.${index}.routes`,
  });
  const name = useWatch<F, `virtualHosts.${number}.name`>({ name: `virtualHosts.${index}.name` });
  const ownerTeam = useWatch<F, `virtualHosts.${number}.ownerTeam`>({
    name: `virtualHosts.${index}.ownerTeam`,
  });
  const access = virtualHostAccess(writer, name ?? "", ownerTeam);
  const readOnly = access.t === "denied" ? access.reason : undefined;
  const base = `virtualHosts.${index}` as const;
  // Routes there at first are open when few; a route added since opens to be filled in.
  const [initialCount] = useState(routes.fields.length);
  const compact = initialCount > OPEN_ROUTES_UP_TO;
  return (
    <FormSection
      id={`virtual-host-${index}`}
      title={`Virtual host ${index + 1}${name ? `: ${name}` : ""}`}
      badge={
        ownerTeam !== undefined && (
          <OwnerBadge owner={ownerTeam} mine={team !== undefined && ownerTeam === team.name} />
        )
      }
      description="Requests whose Host header matches one of the domains; routes are tried in order, first match wins."
      actions={
        onRemove &&
        readOnly === undefined && (
          <Button
            variant="ghost"
            onClick={onRemove}
            aria-label={`Remove virtual host ${index + 1}`}
          >
            Remove
          </Button>
        )
      }
    >
      {readOnly !== undefined && (
        <p role="note" className="rounded-lg border bg-surface-muted px-4 py-3 text-fg-muted">
          Read-only: {readOnly}
        </p>
      )}
      {/* Read-only fields are disabled; a route stays expandable, to be read. */}
      <fieldset disabled={readOnly !== undefined} className="contents">
        <FieldGrid columns={2}>
          <TextField<F> name={`${base}.name`} label="Virtual host name" mono />
          <TextField<F>
            name={`${base}.domains`}
            label="Domains"
            mono
            hint={domainsHint(readOnly === undefined ? team : undefined)}
          />
        </FieldGrid>
      </fieldset>
      <div className="flex flex-col gap-3">
        <h3 className="text-[13px] font-semibold text-fg">Routes</h3>
        <ListError name={`${base}.routes`} />
        {routes.fields.length === 0 && (
          <p className="rounded-lg border border-dashed px-4 py-5 text-center text-fg-subtle">
            No routes: every request to these domains gets a 404. Add a route to send them
            somewhere.
          </p>
        )}
        <ol className="flex flex-col gap-3">
          {routes.fields.map((field, r) => (
            <li key={field.id}>
              <RouteCard
                host={index}
                index={r}
                count={routes.fields.length}
                defaultOpen={!compact || r >= initialCount}
                clusterList={clusterList}
                clusterNames={clusterNames}
                readOnly={readOnly !== undefined}
                onMove={(to) => routes.move(r, to)}
                onRemove={() => routes.remove(r)}
              />
            </li>
          ))}
        </ol>
        {readOnly === undefined && (
          <div>
            <Button onClick={() => routes.append(newRoute(clusterNames[0] ?? ""))}>
              Add route
            </Button>
          </div>
        )}
      </div>
    </FormSection>
  );
}

function RouteCard({
  host,
  index,
  count,
  defaultOpen,
  clusterList,
  clusterNames,
  readOnly,
  onMove,
  onRemove,
}: {
  host: number;
  index: number;
  count: number;
  /** Whether the route's editor starts mounted; a route with a validation error opens anyway. */
  defaultOpen: boolean;
  clusterList: string;
  clusterNames: readonly string[];
  /** Shown, not changed: no moving or removing, the editor's fields disabled. */
  readOnly: boolean;
  onMove: (to: number) => void;
  onRemove: () => void;
}) {
  const base = `virtualHosts.${host}.routes.${index}` as const;
  const route = useWatch<F, typeof base>({ name: base });
  const legend = `Route ${index + 1}`;
  const [open, setOpen] = useState(defaultOpen);
  const { errors } = useFormState<F>({ name: base });
  const invalid = get(errors, base) !== undefined;
  // The state lives with the route's field id (the list's key), so it follows a move.
  useEffect(() => {
    if (invalid) setOpen(true);
  }, [invalid]);
  const bodyId = useId();
  const target =
    route?.actionKind === "CLUSTER"
      ? `→ ${route.cluster || "?"}`
      : route?.actionKind === "WEIGHTED_CLUSTERS"
        ? `→ split across ${route.weightedClusters.length}`
        : route?.actionKind === "REDIRECT"
          ? "→ redirect"
          : route?.actionKind === "DIRECT_RESPONSE"
            ? "→ direct response"
            : route?.actionKind === "CLUSTER_HEADER"
              ? `→ cluster named by ${route.clusterHeader || "?"}`
              : `→ ${actionLabels[route?.actionKind ?? "CLUSTER"].toLowerCase()}`;
  return (
    <fieldset
      className={`rounded-lg border bg-surface-muted/40 ${invalid ? "border-danger-border" : ""}`}
    >
      <legend className="sr-only">{legend}</legend>
      <div
        className={`flex flex-wrap items-center gap-3 px-4 ${open ? "border-b py-2.5" : "py-1.5"}`}
      >
        <button
          type="button"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setOpen(!open)}
          className="flex min-w-0 flex-1 items-center gap-3 rounded-md text-left"
        >
          <span className="grid size-6 shrink-0 place-items-center rounded-md bg-surface text-xs font-semibold tabular-nums text-fg-muted ring-1 ring-border">
            {index + 1}
          </span>
          <span className="min-w-0 flex-1 truncate font-mono text-[13px] text-fg">
            {route ? `${describeMatch(route)} ${target}` : ""}
          </span>
          <span className="sr-only">
            {open ? "Collapse" : readOnly ? "Show" : "Edit"} route {index + 1}
          </span>
        </button>
        {invalid && (
          <span className="rounded-full bg-danger-soft px-2 py-0.5 text-xs font-medium text-danger ring-1 ring-danger-border ring-inset">
            Has errors
          </span>
        )}
        {!readOnly && (
          <div className="flex gap-1">
            <Button
              variant="ghost"
              onClick={() => onMove(index - 1)}
              disabled={index === 0}
              aria-label={`Move route ${index + 1} up`}
            >
              ↑ Up
            </Button>
            <Button
              variant="ghost"
              onClick={() => onMove(index + 1)}
              disabled={index === count - 1}
              aria-label={`Move route ${index + 1} down`}
            >
              ↓ Down
            </Button>
            <Button variant="ghost" onClick={onRemove} aria-label={`Remove route ${index + 1}`}>
              Remove
            </Button>
          </div>
        )}
      </div>
      <div id={bodyId} hidden={!open}>
        {open && (
          <fieldset disabled={readOnly} className="grid min-w-0 gap-5 p-4 lg:grid-cols-2">
            <MatchEditor base={base} />
            <ActionEditor base={base} clusterList={clusterList} clusterNames={clusterNames} />
          </fieldset>
        )}
      </div>
    </fieldset>
  );
}

type RouteBase = `virtualHosts.${number}.routes.${number}`;

function MatchEditor({ base }: { base: RouteBase }) {
  const kind = useWatch<F, `${RouteBase}.matchKind`>({ name: `${base}.matchKind` });
  return (
    <div className="flex flex-col gap-4">
      <h4 className="text-xs font-medium uppercase tracking-wider text-fg-subtle">Match</h4>
      <div className="grid grid-cols-[minmax(0,2fr)_minmax(0,3fr)] gap-3">
        <SelectField<F>
          name={`${base}.matchKind`}
          label="Match on"
          options={matchKinds.map((k) => ({ value: k, label: matchLabels[k] }))}
        />
        {inYaml.has(kind) ? (
          <p className="self-end pb-1.5 text-xs text-fg-muted">
            Its matcher is Envoy JSON, kept as it is: edit it in the Envoy YAML view.
          </p>
        ) : (
          <TextField<F> name={`${base}.matchValue`} label="Path" mono placeholder="/" />
        )}
      </div>
      <CheckboxField<F> name={`${base}.caseSensitive`} label="Case-sensitive path match" />
      <Matchers base={base} list="headers" title="Headers" />
      <Matchers base={base} list="queryParameters" title="Query parameters" />
      <TextField<F> name={`${base}.name`} label="Route name (optional)" mono />
    </div>
  );
}

function Matchers({
  base,
  list,
  title,
}: {
  base: RouteBase;
  list: "headers" | "queryParameters";
  title: string;
}) {
  const { control } = useFormContext<F>();
  const rows = useFieldArray<F, `${RouteBase}.${typeof list}`>({
    control,
    name: `${base}.${list}`,
  });
  const singular = list === "headers" ? "Header" : "Query parameter";
  return (
    <div className="flex flex-col gap-2">
      <div className="flex items-center justify-between">
        <span className="text-[13px] font-medium text-fg">{title}</span>
        <Button variant="ghost" onClick={() => rows.append(newMatcher())}>
          Add {singular.toLowerCase()}
        </Button>
      </div>
      <ListError name={`${base}.${list}`} />
      {rows.fields.map((field, i) => {
        const row = `${base}.${list}.${i}` as const;
        const label = `${singular} ${i + 1}`;
        return (
          <div key={field.id} className="grid grid-cols-[1fr_8.5rem_1fr_auto] items-start gap-2">
            <TextField<F>
              name={`${row}.name`}
              label={`${label} name`}
              hideLabel
              mono
              placeholder="name"
            />
            <SelectField<F>
              name={`${row}.kind`}
              label={`${label} condition`}
              hideLabel
              options={matcherKinds.map((k) => ({ value: k, label: matcherLabels[k] }))}
            />
            <TextField<F>
              name={`${row}.value`}
              label={`${label} value`}
              hideLabel
              mono
              placeholder="value"
            />
            <Button
              variant="ghost"
              onClick={() => rows.remove(i)}
              aria-label={`Remove ${label.toLowerCase()}`}
            >
              ✕
            </Button>
          </div>
        );
      })}
    </div>
  );
}

function ActionEditor({
  base,
  clusterList,
  clusterNames,
}: {
  base: RouteBase;
  clusterList: string;
  clusterNames: readonly string[];
}) {
  const kind = useWatch<F, `${RouteBase}.actionKind`>({ name: `${base}.actionKind` });
  const cluster = useWatch<F, `${RouteBase}.cluster`>({ name: `${base}.cluster` });
  const forwards = forwardingActions.has(kind);
  const unknown = kind === "CLUSTER" && cluster && !clusterNames.includes(cluster.trim());
  return (
    <div className="flex flex-col gap-4">
      <h4 className="text-xs font-medium uppercase tracking-wider text-fg-subtle">Action</h4>
      <SelectField<F>
        name={`${base}.actionKind`}
        label="Action"
        options={actionKinds.map((k) => ({ value: k, label: actionLabels[k] }))}
      />
      {kind === "CLUSTER" && (
        <TextField<F>
          name={`${base}.cluster`}
          label="Cluster"
          mono
          list={clusterList}
          placeholder="payments-backend"
          hint={
            unknown
              ? `No cluster “${cluster}” in the draft yet: publishing fails until it exists.`
              : undefined
          }
        />
      )}
      {kind === "WEIGHTED_CLUSTERS" && <WeightedClusters base={base} clusterList={clusterList} />}
      {kind === "CLUSTER_HEADER" && (
        <TextField<F>
          name={`${base}.clusterHeader`}
          label="Header naming the cluster"
          mono
          placeholder="x-upstream-cluster"
          hint="Each request goes to the cluster its value names; none, or a missing one: 503."
        />
      )}
      {inYaml.has(kind) && (
        <p className="text-xs text-fg-muted">
          This action is Envoy JSON, kept as it is: edit it in the Envoy YAML view.
        </p>
      )}
      {kind === "REDIRECT" && (
        <FieldGrid columns={2}>
          <TextField<F>
            name={`${base}.redirectHost`}
            label="Redirect host"
            mono
            placeholder="www.example.com"
          />
          <TextField<F>
            name={`${base}.redirectPath`}
            label="Redirect path"
            mono
            placeholder="/new"
          />
          <SelectField<F>
            name={`${base}.redirectCode`}
            label="Status"
            options={redirectCodes.map((c) => ({ value: c, label: redirectCodeLabels[c] }))}
          />
          <CheckboxField<F>
            name={`${base}.httpsRedirect`}
            label="Redirect to HTTPS"
            className="self-end pb-1.5"
          />
        </FieldGrid>
      )}
      {kind === "DIRECT_RESPONSE" && (
        <>
          <NumberField<F> name={`${base}.directStatus`} label="Status code" />
          <TextAreaField<F> name={`${base}.directBody`} label="Response body" rows={3} />
        </>
      )}
      {forwards && (
        <>
          <FieldGrid columns={2}>
            <NumberField<F>
              name={`${base}.timeoutMs`}
              label="Timeout (ms)"
              hint="Empty: Envoy’s 15 s; 0 disables."
            />
            <TextField<F>
              name={`${base}.prefixRewrite`}
              label="Prefix rewrite"
              mono
              placeholder="/"
            />
          </FieldGrid>
          <FieldGrid columns={3}>
            <TextField<F> name={`${base}.retryOn`} label="Retry on" mono placeholder="5xx,reset" />
            <NumberField<F> name={`${base}.numRetries`} label="Retries" />
            <NumberField<F> name={`${base}.perTryTimeoutMs`} label="Per-try timeout (ms)" />
          </FieldGrid>
        </>
      )}
    </div>
  );
}

const splitColors = [
  "bg-accent",
  "bg-success",
  "bg-warning",
  "bg-danger",
  "bg-fg-muted",
  "bg-accent/50",
];

function WeightedClusters({ base, clusterList }: { base: RouteBase; clusterList: string }) {
  const { control } = useFormContext<F>();
  const rows = useFieldArray<F, `${RouteBase}.weightedClusters`>({
    control,
    name: `${base}.weightedClusters`,
  });
  const values = useWatch<F, `${RouteBase}.weightedClusters`>({ name: `${base}.weightedClusters` });
  const weights = (values ?? []).map((w) => (/^\d+$/.test(w.weight.trim()) ? Number(w.weight) : 0));
  const percent = splitPercentages(weights);
  return (
    <div className="flex flex-col gap-2">
      <span className="text-[13px] font-medium text-fg">Split</span>
      <div
        role="img"
        aria-label={`Traffic split: ${(values ?? [])
          .map((w, i) => `${w.name || "unnamed"} ${percent[i] ?? 0}%`)
          .join(", ")}`}
        className="flex h-2.5 overflow-hidden rounded-full bg-surface-muted ring-1 ring-border"
      >
        {percent.map((p, i) => (
          <div
            // biome-ignore lint/suspicious/noArrayIndexKey: segments follow the rows' order
            key={i}
            className={`${splitColors[i % splitColors.length]} transition-[width]`}
            style={{ width: `${p}%` }}
          />
        ))}
      </div>
      <ListError name={`${base}.weightedClusters`} />
      {rows.fields.map((field, i) => {
        const row = `${base}.weightedClusters.${i}` as const;
        const label = `Split ${i + 1}`;
        return (
          <div
            key={field.id}
            className="grid grid-cols-[auto_1fr_6rem_3.5rem_auto] items-start gap-2"
          >
            <span
              aria-hidden="true"
              className={`mt-3 size-2 rounded-full ${splitColors[i % splitColors.length]}`}
            />
            <TextField<F>
              name={`${row}.name`}
              label={`${label} cluster`}
              hideLabel
              mono
              list={clusterList}
              placeholder="cluster"
            />
            <NumberField<F>
              name={`${row}.weight`}
              label={`${label} weight`}
              hideLabel
              placeholder="weight"
            />
            <output className="mt-1.5 text-right font-mono text-[13px] tabular-nums text-fg-muted">
              {percent[i] ?? 0}%
            </output>
            <Button
              variant="ghost"
              onClick={() => rows.remove(i)}
              aria-label={`Remove split ${i + 1}`}
            >
              ✕
            </Button>
          </div>
        );
      })}
      <div>
        <Button
          variant="ghost"
          onClick={() => rows.append({ name: "", weight: "1", extra: undefined })}
        >
          Add cluster to split
        </Button>
      </div>
    </div>
  );
}
