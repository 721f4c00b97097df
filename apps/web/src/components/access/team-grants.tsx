"use client";

/**
 * A team's page, what the team may name beyond its clusters: the secrets it owns (its clusters may
 * name them) and the objects an admin shared with it (README, "Access control": references are
 * authorized). Sharing replaces an object's whole list of teams, so adding or removing this team
 * sends the list the other teams' pages show, with this one added or taken out. What is served
 * changes at the next publish.
 */
import { useQuery } from "@connectrpc/connect-query";
import type { Team } from "@switchyard/proto/switchyard/v1/access_pb";
import { ConfigService, ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import { toast } from "sonner";
import { z } from "zod";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { SelectField } from "@/components/form/field";
import { FieldGrid } from "@/components/form/section";
import { SectionForm, useAccessForm } from "./access-form";
import { useConfirmedChange } from "./confirmed-change";
import { OwnedList } from "./owned-list";
import { useAccessClient, useInvalidateAccess } from "./use-access-client";

/** The kinds a team's objects can name, as the console words them. */
const KINDS = [
  [ResourceKind.CLUSTER, "cluster"],
  [ResourceKind.SECRET, "secret"],
  [ResourceKind.LISTENER, "listener"],
  [ResourceKind.ROUTE_CONFIGURATION, "route-configuration"],
] as const;
const wordOf = (kind: ResourceKind) => KINDS.find(([k]) => k === kind)?.[1] ?? "object";
const kindOf = (word: string) => KINDS.find(([, w]) => w === word)?.[0] ?? ResourceKind.UNSPECIFIED;

const secretSchema = z.object({ secret: z.string().min(1, "Choose a secret") });
type SecretForm = z.infer<typeof secretSchema>;
const shareSchema = z.object({ object: z.string().min(1, "Choose what to share") });
type ShareForm = z.infer<typeof shareSchema>;

type Pending =
  | { readonly t: "secret"; readonly secret: string }
  | { readonly t: "share"; readonly item: string };

export function TeamGrants({ team, teams }: { team: Team; teams: readonly Team[] }) {
  const client = useAccessClient();
  const invalidate = useInvalidateAccess();
  const { pending, setPending, busy, run: confirmRun } = useConfirmedChange<Pending>();
  const secret = useAccessForm<SecretForm>({
    schema: secretSchema,
    defaults: { secret: "" },
    rules: [{ field: "secret", match: /^secret / }],
  });
  const share = useAccessForm<ShareForm>({
    schema: shareSchema,
    defaults: { object: "" },
    rules: [{ field: "object", match: /does not exist/ }],
  });
  const listed = [
    useQuery(ConfigService.method.listResources, { kind: ResourceKind.CLUSTER }),
    useQuery(ConfigService.method.listResources, { kind: ResourceKind.SECRET }),
    useQuery(ConfigService.method.listResources, { kind: ResourceKind.LISTENER }),
    useQuery(ConfigService.method.listResources, { kind: ResourceKind.ROUTE_CONFIGURATION }),
  ];

  const secretOwner = new Map(teams.flatMap((t) => t.secrets.map((s) => [s, t.name] as const)));
  const secrets = listed[1]?.data?.resources ?? [];
  const secretOptions = [
    { value: "", label: "Choose a secret…" },
    ...secrets
      .filter((s) => !team.secrets.includes(s.name))
      .map((s) => {
        const owner = secretOwner.get(s.name);
        return { value: s.name, label: owner ? `${s.name} (now ${owner}’s)` : s.name };
      }),
  ];
  const item = (kind: ResourceKind, name: string) => `${wordOf(kind)}/${name}`;
  const sharedHere = team.shared.map((o) => item(o.kind, o.name));
  const shareOptions = [
    { value: "", label: "Choose what to share…" },
    ...KINDS.flatMap(([kind], i) =>
      (listed[i]?.data?.resources ?? [])
        .map((r) => item(kind, r.name))
        .filter((key) => !sharedHere.includes(key))
        .map((key) => ({ value: key, label: key })),
    ),
  ];
  /** The teams an object is shared with now, as every team's page lists them. */
  const sharedWith = (key: string) =>
    teams.filter((t) => t.shared.some((o) => item(o.kind, o.name) === key)).map((t) => t.id);
  const setSharing = (key: string, teamIds: string[]) => {
    const slash = key.indexOf("/");
    return client.setSharing({
      kind: kindOf(key.slice(0, slash)),
      name: key.slice(slash + 1),
      teamIds,
    });
  };

  return (
    <>
      <SectionForm
        form={secret.form}
        title="Secrets"
        description="The team’s clusters may name these secrets (only admins change secrets)."
        submitLabel="Assign secret"
        busy={secret.busy}
        error={secret.error}
        onSubmit={async (values) => {
          const ok = await secret.run(() =>
            client.setSecretOwner({ secret: values.secret, teamId: team.id }),
          );
          if (!ok) return;
          secret.form.reset({ secret: "" });
          await invalidate();
          toast.success(`Secret “${values.secret}” now belongs to ${team.name}`, {
            description: "Proxies get it for the team’s clusters from the next publish.",
          });
        }}
      >
        <OwnedList
          label={`Secrets of ${team.name}`}
          items={team.secrets}
          none="No secret yet."
          mono
          removeLabel={(s) => `Unassign secret ${s}`}
          removeText="Unassign"
          onRemove={(name) => setPending({ t: "secret", secret: name })}
          busy={busy}
        />
        <FieldGrid columns={2}>
          <SelectField<SecretForm>
            name="secret"
            label="Secret to assign"
            options={secretOptions}
            hint="A secret owned by another team moves to this one."
          />
        </FieldGrid>
      </SectionForm>

      <SectionForm
        form={share.form}
        title="Shared with this team"
        description="Beyond its own, what the team’s routes and clusters may name: another team’s or an admin’s cluster, secret, internal listener or route configuration."
        submitLabel="Share"
        busy={share.busy}
        error={share.error}
        onSubmit={async (values) => {
          const ok = await share.run(() =>
            setSharing(values.object, [...sharedWith(values.object), team.id]),
          );
          if (!ok) return;
          share.form.reset({ object: "" });
          await invalidate();
          toast.success(`${values.object} is shared with ${team.name}`, {
            description: "What proxies are served changes at the next publish.",
          });
        }}
      >
        <OwnedList
          label={`Shared with ${team.name}`}
          items={sharedHere}
          none="Nothing shared with this team."
          mono
          removeLabel={(key) => `Stop sharing ${key}`}
          removeText="Stop sharing"
          onRemove={(key) => setPending({ t: "share", item: key })}
          busy={busy}
        />
        <FieldGrid columns={2}>
          <SelectField<ShareForm> name="object" label="Object to share" options={shareOptions} />
        </FieldGrid>
      </SectionForm>

      <ConfirmDialog
        open={pending !== undefined}
        title={
          pending?.t === "secret"
            ? `Unassign ${pending.secret} from ${team.name}?`
            : `Stop sharing ${pending?.t === "share" ? pending.item : ""} with ${team.name}?`
        }
        confirmLabel={pending?.t === "secret" ? "Unassign secret" : "Stop sharing"}
        danger
        busy={busy}
        onCancel={() => setPending(undefined)}
        onConfirm={() => {
          if (pending?.t === "secret") {
            const { secret: name } = pending;
            void confirmRun(
              `unassign ${name}`,
              () => client.setSecretOwner({ secret: name, teamId: "" }),
              () => toast.success(`Secret “${name}” no longer belongs to a team`),
            );
          } else if (pending?.t === "share") {
            const { item: key } = pending;
            void confirmRun(
              `stop sharing ${key}`,
              () =>
                setSharing(
                  key,
                  sharedWith(key).filter((id) => id !== team.id),
                ),
              () => toast.success(`${key} is no longer shared with ${team.name}`),
            );
          }
        }}
      >
        The team’s objects that name it keep doing so, but a member’s change to them is refused
        until it no longer does, and from the next publish its proxies are not served a secret for
        them.
      </ConfirmDialog>
    </>
  );
}
