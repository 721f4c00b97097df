"use client";

/**
 * Teams in the console: the list, New team and a team's page, in one file as each resource's
 * pages are (*-pages.tsx). Long because a team's page is four sections (settings, domains,
 * clusters, members) sharing one confirmation dialog for removals and deletion; its secrets and
 * what is shared with it are team-grants.tsx.
 */
import { useQuery } from "@connectrpc/connect-query";
import { AccessService, type Team } from "@switchyard/proto/switchyard/v1/access_pb";
import { ConfigService, ResourceKind } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import { useRouter } from "next/navigation";
import { useMemo } from "react";
import { toast } from "sonner";
import { z } from "zod";
import { ConfigList } from "@/components/config/config-list";
import { clusterHref } from "@/components/config/hrefs";
import { Chip } from "@/components/config/states";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { CheckboxField, SelectField, TextAreaField, TextField } from "@/components/form/field";
import { FieldGrid, FormSection } from "@/components/form/section";
import { Button, buttonClass } from "@/components/ui/button";
import { UsersIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { PageHeader } from "@/components/ui/page-states";
import { DOMAIN_FIELD_RULES, TEAM_FIELD_RULES } from "@/lib/access-errors";
import { splitList } from "@/lib/form-values";
import { CreatePage, FromList, SectionForm, useAccessForm } from "./access-form";
import { AdminOnly } from "./admin-only";
import { useConfirmedChange } from "./confirmed-change";
import { OwnedList } from "./owned-list";
import { TeamGrants } from "./team-grants";
import { useAccessClient, useInvalidateAccess } from "./use-access-client";
import { userHref } from "./user-pages";

export const teamHref = (name: string): Route => `/teams/${encodeURIComponent(name)}` as Route;

export function TeamList() {
  return (
    <AdminOnly title="Teams" what="manage teams">
      <Teams />
    </AdminOnly>
  );
}

function Teams() {
  const query = useQuery(AccessService.method.listTeams, {});
  const columns = useMemo<ColumnDef<Team, unknown>[]>(
    () => [
      {
        id: "name",
        header: "Name",
        accessorFn: (t) => t.name,
        cell: ({ row }) => (
          <Link
            href={teamHref(row.original.name)}
            className="text-[13px] text-fg hover:text-accent hover:underline"
          >
            {row.original.name}
          </Link>
        ),
      },
      {
        id: "domains",
        header: "Domains",
        enableSorting: false,
        cell: ({ row }) =>
          row.original.domains.length === 0 ? (
            <Chip tone="warning">none</Chip>
          ) : (
            <span className="flex flex-wrap gap-1">
              {row.original.domains.map((d) => (
                <Chip key={d}>
                  <span className="font-mono">{d}</span>
                </Chip>
              ))}
            </span>
          ),
      },
      {
        id: "clusters",
        header: "Clusters",
        accessorFn: (t) => t.clusters.length,
        cell: ({ row }) => <span className="tabular-nums">{row.original.clusters.length}</span>,
      },
      {
        id: "members",
        header: "Members",
        accessorFn: (t) => t.memberCount,
        cell: ({ row }) => <span className="tabular-nums">{row.original.memberCount}</span>,
      },
      {
        id: "review",
        header: "Publishing",
        accessorFn: (t) => (t.requireReview ? 1 : 0),
        cell: ({ row }) =>
          row.original.requireReview ? <Chip tone="accent">requires review</Chip> : "by members",
      },
    ],
    [],
  );
  return (
    <ConfigList
      query={query}
      rowsOf={(data) => data.teams}
      title="Teams"
      description="Who owns which domains and clusters: a team’s members change only what it owns."
      newHref={"/teams/new" as Route}
      newLabel="New team"
      what="teams"
      empty={{
        icon: <UsersIcon className="size-5" />,
        title: "No teams yet",
        action: "Create a team",
        children:
          "A team owns domain patterns (such as *.shop.example.com) and clusters. Its members may change the virtual hosts under those domains and those clusters, and publish their own changes.",
      }}
      table={{
        caption: "Teams",
        columns,
        searchPlaceholder: "Search by name, domain or cluster…",
        searchText: (t) => [t.name, ...t.domains, ...t.clusters].join(" "),
      }}
    />
  );
}

const teamName = z.string().trim().min(1, "Enter the team’s name");

const newTeamSchema = z.object({
  name: teamName,
  requireReview: z.boolean(),
  /** One pattern per line or comma-separated. */
  domains: z.string(),
});
type NewTeamForm = z.infer<typeof newTeamSchema>;

export function NewTeam() {
  return (
    <AdminOnly title="New team" what="create teams">
      <CreateTeamForm />
    </AdminOnly>
  );
}

function CreateTeamForm() {
  const router = useRouter();
  const client = useAccessClient();
  const invalidate = useInvalidateAccess();
  const { form, error, busy, run } = useAccessForm<NewTeamForm>({
    schema: newTeamSchema,
    defaults: { name: "", requireReview: false, domains: "" },
    rules: TEAM_FIELD_RULES,
  });
  const onSubmit = form.handleSubmit(async (values) => {
    let created: Team | undefined;
    const ok = await run(async () => {
      created = await client.createTeam({
        name: values.name,
        requireReview: values.requireReview,
        domains: splitList(values.domains),
      });
    });
    if (!ok || created === undefined) return;
    await invalidate();
    toast.success(`Team “${created.name}” created`, {
      description: "Add its members on Users, and its clusters on this page.",
    });
    router.push(teamHref(created.name));
  });
  return (
    <CreatePage
      form={form}
      onSubmit={onSubmit}
      list={{ href: "/teams" as Route, label: "Teams" }}
      title="New team"
      description="Its members will change the virtual hosts under its domains and the clusters it owns."
      submitLabel="Create team"
      busy={busy}
      error={error}
    >
      <FormSection title="Team">
        <FieldGrid columns={2}>
          <TextField<NewTeamForm> name="name" label="Name" />
          <TextAreaField<NewTeamForm>
            name="domains"
            label="Domain patterns"
            mono
            rows={3}
            placeholder={"*.shop.example.com\napi.shop.example.com"}
            hint="One per line: a host name, or *. and a domain for everything below it."
          />
          <CheckboxField<NewTeamForm>
            name="requireReview"
            label="Requires review"
            hint="Members cannot publish or roll back: an admin reviews and publishes their changes."
          />
        </FieldGrid>
      </FormSection>
    </CreatePage>
  );
}

export function EditTeam({ name }: { name: string }) {
  return (
    <AdminOnly title={name} what="manage teams">
      <EditTeamPage name={name} />
    </AdminOnly>
  );
}

function EditTeamPage({ name }: { name: string }) {
  const query = useQuery(AccessService.method.listTeams, {});
  return (
    <FromList
      query={query}
      what="the team"
      find={(data) => data.teams.find((t) => t.name === name)}
      missing={{
        title: "No such team",
        text: `No team is named “${name}”: it may have been renamed or deleted.`,
        href: "/teams" as Route,
        label: "Back to Teams",
      }}
    >
      {(team, data) => <TeamEditor key={team.id} team={team} teams={data.teams} />}
    </FromList>
  );
}

const settingsSchema = z.object({ name: teamName, requireReview: z.boolean() });
type SettingsForm = z.infer<typeof settingsSchema>;
const domainSchema = z.object({ pattern: z.string().trim().min(1, "Enter a domain pattern") });
type DomainForm = z.infer<typeof domainSchema>;
const clusterSchema = z.object({ cluster: z.string().min(1, "Choose a cluster") });
type ClusterForm = z.infer<typeof clusterSchema>;

/** What an admin confirms before it happens: removing a domain or a cluster, deleting the team. */
type Pending =
  | { readonly t: "domain"; readonly pattern: string }
  | { readonly t: "cluster"; readonly cluster: string }
  | { readonly t: "delete" };

function TeamEditor({ team, teams }: { team: Team; teams: readonly Team[] }) {
  const router = useRouter();
  const client = useAccessClient();
  const invalidate = useInvalidateAccess();
  const { pending, setPending, busy, run: confirmRun } = useConfirmedChange<Pending>();

  const settings = useAccessForm<SettingsForm>({
    schema: settingsSchema,
    defaults: { name: team.name, requireReview: team.requireReview },
    rules: TEAM_FIELD_RULES,
  });
  const domain = useAccessForm<DomainForm>({
    schema: domainSchema,
    defaults: { pattern: "" },
    rules: DOMAIN_FIELD_RULES,
  });
  const cluster = useAccessForm<ClusterForm>({
    schema: clusterSchema,
    defaults: { cluster: "" },
    rules: [{ field: "cluster", match: /^cluster / }],
  });

  const clusters = useQuery(ConfigService.method.listResources, { kind: ResourceKind.CLUSTER });
  const users = useQuery(AccessService.method.listUsers, {});
  const members = (users.data?.users ?? []).filter((u) => u.teamId === team.id);
  const ownerOf = new Map(teams.flatMap((t) => t.clusters.map((c) => [c, t.name] as const)));
  const clusterOptions = [
    { value: "", label: "Choose a cluster…" },
    ...(clusters.data?.resources ?? [])
      .filter((c) => !team.clusters.includes(c.name))
      .map((c) => {
        const owner = ownerOf.get(c.name);
        return { value: c.name, label: owner ? `${c.name} (now ${owner}’s)` : c.name };
      }),
  ];

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        eyebrow={
          <Link href={"/teams" as Route} className="hover:text-fg hover:underline">
            Teams
          </Link>
        }
        title={team.name}
        description={`${team.memberCount} ${team.memberCount === 1 ? "member" : "members"} · ${
          team.requireReview ? "an admin reviews and publishes its changes" : "members publish"
        }`}
        actions={
          <Button onClick={() => setPending({ t: "delete" })} disabled={busy}>
            Delete team…
          </Button>
        }
      />

      <SectionForm
        form={settings.form}
        title="Team"
        submitLabel="Save"
        busy={settings.busy}
        error={settings.error}
        disabled={!settings.form.formState.isDirty}
        onSubmit={async (values) => {
          let saved: Team | undefined;
          const ok = await settings.run(async () => {
            saved = await client.updateTeam({
              id: team.id,
              name: values.name,
              requireReview: values.requireReview,
            });
          });
          if (!ok || saved === undefined) return;
          settings.form.reset({ name: saved.name, requireReview: saved.requireReview });
          await invalidate();
          toast.success(`Team “${saved.name}” saved`);
          if (saved.name !== team.name) router.replace(teamHref(saved.name));
        }}
      >
        <FieldGrid columns={2}>
          <TextField<SettingsForm> name="name" label="Name" />
          <CheckboxField<SettingsForm>
            name="requireReview"
            label="Requires review"
            hint="Members cannot publish or roll back: an admin reviews and publishes their changes."
            className="self-end pb-1"
          />
        </FieldGrid>
      </SectionForm>

      <SectionForm
        form={domain.form}
        title="Domains"
        description="Members change the virtual hosts whose every domain is under one of these (the most specific pattern of any team wins)."
        submitLabel="Add domain"
        busy={domain.busy}
        error={domain.error}
        onSubmit={async (values) => {
          const ok = await domain.run(() =>
            client.addTeamDomain({ teamId: team.id, pattern: values.pattern }),
          );
          if (!ok) return;
          domain.form.reset({ pattern: "" });
          await invalidate();
          toast.success(`${values.pattern.trim()} now belongs to ${team.name}`);
        }}
      >
        <OwnedList
          label={`Domains of ${team.name}`}
          items={team.domains}
          none="No domain yet: members cannot change any virtual host."
          mono
          removeLabel={(d) => `Remove domain ${d}`}
          onRemove={(pattern) => setPending({ t: "domain", pattern })}
          busy={busy}
        />
        <FieldGrid columns={2}>
          <TextField<DomainForm>
            name="pattern"
            label="Domain pattern"
            mono
            placeholder="*.shop.example.com"
            hint="A host name (api.example.com) or a wildcard below a domain (*.example.com)."
          />
        </FieldGrid>
      </SectionForm>

      <SectionForm
        form={cluster.form}
        title="Clusters"
        description="Members change these clusters; a cluster a member creates is their team’s."
        submitLabel="Assign cluster"
        busy={cluster.busy}
        error={cluster.error}
        onSubmit={async (values) => {
          const ok = await cluster.run(() =>
            client.setClusterOwner({ cluster: values.cluster, teamId: team.id }),
          );
          if (!ok) return;
          cluster.form.reset({ cluster: "" });
          await invalidate();
          toast.success(`Cluster “${values.cluster}” now belongs to ${team.name}`);
        }}
      >
        <OwnedList
          label={`Clusters of ${team.name}`}
          items={team.clusters}
          none="No cluster yet."
          mono
          link={clusterHref}
          removeLabel={(c) => `Unassign cluster ${c}`}
          removeText="Unassign"
          onRemove={(name) => setPending({ t: "cluster", cluster: name })}
          busy={busy}
        />
        <FieldGrid columns={2}>
          <SelectField<ClusterForm>
            name="cluster"
            label="Cluster to assign"
            options={clusterOptions}
            hint="A cluster owned by another team moves to this one."
          />
        </FieldGrid>
      </SectionForm>

      <TeamGrants team={team} teams={teams} />

      <FormSection
        title="Members"
        description="Members are added and moved on each user’s page."
        actions={
          <Link href={"/users/new" as Route} className={buttonClass("secondary")}>
            New user
          </Link>
        }
      >
        {members.length === 0 ? (
          <p className="text-fg-muted">No member yet.</p>
        ) : (
          <ul aria-label={`Members of ${team.name}`} className="flex flex-wrap gap-2">
            {members.map((u) => (
              <li key={u.id}>
                <Link
                  href={userHref(u.username)}
                  className="font-mono text-[13px] text-fg hover:text-accent hover:underline"
                >
                  {u.username}
                </Link>
              </li>
            ))}
          </ul>
        )}
      </FormSection>

      <ConfirmDialog
        open={pending?.t === "domain"}
        title={`Remove ${pending?.t === "domain" ? pending.pattern : ""} from ${team.name}?`}
        confirmLabel="Remove domain"
        danger
        busy={busy}
        onCancel={() => setPending(undefined)}
        onConfirm={() => {
          if (pending?.t !== "domain") return;
          const { pattern } = pending;
          void confirmRun(
            `remove ${pattern}`,
            () => client.removeTeamDomain({ teamId: team.id, pattern }),
            () => toast.success(`${pattern} no longer belongs to ${team.name}`),
          );
        }}
      >
        Its members can no longer change the virtual hosts under it, unless another of the team’s
        patterns covers them. The routes themselves are not changed.
      </ConfirmDialog>

      <ConfirmDialog
        open={pending?.t === "cluster"}
        title={`Unassign ${pending?.t === "cluster" ? pending.cluster : ""} from ${team.name}?`}
        confirmLabel="Unassign cluster"
        danger
        busy={busy}
        onCancel={() => setPending(undefined)}
        onConfirm={() => {
          if (pending?.t !== "cluster") return;
          const { cluster: name } = pending;
          void confirmRun(
            `unassign ${name}`,
            () => client.setClusterOwner({ cluster: name, teamId: "" }),
            () => toast.success(`Cluster “${name}” no longer belongs to a team`),
          );
        }}
      >
        No team will own it: only admins can change it until it is assigned again.
      </ConfirmDialog>

      <ConfirmDialog
        open={pending?.t === "delete"}
        title={`Delete team “${team.name}”?`}
        confirmLabel="Delete team"
        danger
        busy={busy}
        onCancel={() => setPending(undefined)}
        onConfirm={() =>
          void confirmRun(
            `delete team ${team.name}`,
            () => client.deleteTeam({ id: team.id }),
            () => {
              toast.success(`Team “${team.name}” deleted`);
              router.push("/teams" as Route);
            },
          )
        }
      >
        Its {team.memberCount} {team.memberCount === 1 ? "member loses" : "members lose"} their
        team, its {team.domains.length} {team.domains.length === 1 ? "domain is" : "domains are"}{" "}
        released and its {team.clusters.length}{" "}
        {team.clusters.length === 1 ? "cluster becomes" : "clusters become"} unowned. No route or
        cluster is deleted.
      </ConfirmDialog>
    </div>
  );
}
