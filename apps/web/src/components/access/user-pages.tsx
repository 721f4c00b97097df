"use client";

/**
 * Accounts in the console: the list, New user and a user's page, in one file as each resource's
 * pages are (*-pages.tsx). Long because a user's page is three sections (role and team, password,
 * disabling) with their confirmations, and the pages share the team choices (useTeamOptions).
 */
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import { AccessService, Role, type User } from "@switchyard/proto/switchyard/v1/access_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { useWatch } from "react-hook-form";
import { toast } from "sonner";
import { z } from "zod";
import { ConfigList } from "@/components/config/config-list";
import { Chip } from "@/components/config/states";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { SelectField, TextField } from "@/components/form/field";
import { FieldGrid, FormSection } from "@/components/form/section";
import { Button, buttonClass } from "@/components/ui/button";
import { UserIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { PageHeader } from "@/components/ui/page-states";
import { RelativeTime } from "@/components/ui/relative-time";
import { messageOf, USER_FIELD_RULES } from "@/lib/access-errors";
import { ROLE_LABELS, ROLE_OPTIONS, roleOf } from "@/lib/access-labels";
import { CreatePage, FromList, SectionForm, useAccessForm } from "./access-form";
import { AdminOnly } from "./admin-only";
import { useAccessClient, useInvalidateAccess } from "./use-access-client";
import { useCaller } from "./use-caller";

export const userHref = (username: string): Route =>
  `/users/${encodeURIComponent(username)}` as Route;

export const tokensOfHref = (username: string): Route =>
  `/tokens?user=${encodeURIComponent(username)}` as Route;

export function UserList() {
  return (
    <AdminOnly title="Users" what="manage users">
      <Users />
    </AdminOnly>
  );
}

function Users() {
  const query = useQuery(AccessService.method.listUsers, {});
  const columns = useMemo<ColumnDef<User, unknown>[]>(
    () => [
      {
        id: "username",
        header: "Username",
        accessorFn: (u) => u.username,
        cell: ({ row }) => (
          <Link
            href={userHref(row.original.username)}
            className="font-mono text-[13px] text-fg hover:text-accent hover:underline"
          >
            {row.original.username}
          </Link>
        ),
      },
      {
        id: "role",
        header: "Role",
        accessorFn: (u) => ROLE_LABELS[u.role],
        cell: ({ row }) => (
          <Chip tone={row.original.role === Role.ADMIN ? "accent" : "muted"}>
            {ROLE_LABELS[row.original.role]}
          </Chip>
        ),
      },
      {
        id: "team",
        header: "Team",
        accessorFn: (u) => u.teamName,
        cell: ({ row }) => row.original.teamName || <span className="text-fg-subtle">none</span>,
      },
      {
        id: "status",
        header: "Status",
        accessorFn: (u) => (u.disableTime ? "disabled" : "active"),
        cell: ({ row }) =>
          row.original.disableTime ? <Chip tone="warning">disabled</Chip> : "active",
      },
      {
        id: "last-login",
        header: "Last sign-in",
        accessorFn: (u) => (u.lastLoginTime ? Number(u.lastLoginTime.seconds) : 0),
        cell: ({ row }) =>
          row.original.lastLoginTime ? (
            <RelativeTime date={timestampDate(row.original.lastLoginTime)} />
          ) : (
            <span className="text-fg-subtle">never</span>
          ),
      },
      {
        id: "created",
        header: "Created",
        accessorFn: (u) => (u.createTime ? Number(u.createTime.seconds) : 0),
        cell: ({ row }) =>
          row.original.createTime ? (
            <RelativeTime date={timestampDate(row.original.createTime)} />
          ) : null,
      },
    ],
    [],
  );
  return (
    <ConfigList
      query={query}
      rowsOf={(data) => data.users}
      title="Users"
      description="Who may sign in, with which role, in which team. Every sign-in is in the audit log."
      newHref={"/users/new" as Route}
      newLabel="New user"
      what="users"
      empty={{
        icon: <UserIcon className="size-5" />,
        title: "No users",
        action: "Create a user",
        children:
          "Every person who edits routes gets an account: a member of the team that owns them, or a viewer who only reads.",
      }}
      table={{
        caption: "Users",
        columns,
        searchPlaceholder: "Search by username or team…",
        searchText: (u) => [u.username, u.teamName, ROLE_LABELS[u.role]].join(" "),
      }}
    />
  );
}

const NO_TEAM = "";

/** The team select's options: "No team", then every team by name. */
function useTeamOptions() {
  const teams = useQuery(AccessService.method.listTeams, {});
  return [
    { value: NO_TEAM, label: "No team" },
    ...(teams.data?.teams ?? []).map((t) => ({ value: t.id, label: t.name })),
  ];
}

const required = (what: string) => z.string().trim().min(1, `Enter ${what}`);

const newUserSchema = z.object({
  username: required("a username"),
  // The length rule is the server's (passwords.ts): its message shows at this field.
  password: z.string().min(1, "Enter a password"),
  role: z.string(),
  // A disabled select (not a member) may leave it unset.
  teamId: z.string().optional(),
});
type NewUserForm = z.infer<typeof newUserSchema>;

export function NewUser() {
  return (
    <AdminOnly title="New user" what="create accounts">
      <CreateUserForm />
    </AdminOnly>
  );
}

function CreateUserForm() {
  const router = useRouter();
  const client = useAccessClient();
  const invalidate = useInvalidateAccess();
  const teamOptions = useTeamOptions();
  const { form, error, busy, run } = useAccessForm<NewUserForm>({
    schema: newUserSchema,
    defaults: { username: "", password: "", role: String(Role.MEMBER), teamId: NO_TEAM },
    rules: USER_FIELD_RULES,
  });
  const role = useWatch({ control: form.control, name: "role" });
  const isMember = roleOf(role) === Role.MEMBER;
  const onSubmit = form.handleSubmit(async (values) => {
    let created: User | undefined;
    const ok = await run(async () => {
      created = await client.createUser({
        username: values.username,
        password: values.password,
        role: roleOf(values.role),
        teamId: isMember ? (values.teamId ?? NO_TEAM) : NO_TEAM,
      });
    });
    if (!ok || created === undefined) return;
    await invalidate();
    toast.success(`User “${created.username}” created`, {
      description: "Give them their password; they sign in at /login.",
    });
    router.push(userHref(created.username));
  });
  return (
    <CreatePage
      form={form}
      onSubmit={onSubmit}
      list={{ href: "/users" as Route, label: "Users" }}
      title="New user"
      description="The account signs in on the console’s login page and can create its own API tokens."
      submitLabel="Create user"
      busy={busy}
      error={error}
    >
      <FormSection title="Account">
        <FieldGrid columns={2}>
          <TextField<NewUserForm>
            name="username"
            label="Username"
            mono
            hint="a-z, 0-9, “.”, “_” and “-”."
          />
          <TextField<NewUserForm>
            name="password"
            label="Password"
            type="password"
            autoComplete="new-password"
            hint="Share it with them privately; they can be given a new one here later."
          />
          <SelectField<NewUserForm> name="role" label="Role" options={ROLE_OPTIONS} />
          <SelectField<NewUserForm>
            name="teamId"
            label="Team"
            options={teamOptions}
            disabled={!isMember}
            hint={
              isMember
                ? "The team whose routes and clusters they may change."
                : "Only members belong to a team."
            }
          />
        </FieldGrid>
      </FormSection>
    </CreatePage>
  );
}

export function EditUser({ username }: { username: string }) {
  return (
    <AdminOnly title={username} what="change accounts">
      <EditUserPage username={username} />
    </AdminOnly>
  );
}

function EditUserPage({ username }: { username: string }) {
  const query = useQuery(AccessService.method.listUsers, {});
  return (
    <FromList
      query={query}
      what="the user"
      find={(data) => data.users.find((u) => u.username === username)}
      missing={{
        title: "No such user",
        text: `No account is named “${username}”.`,
        href: "/users" as Route,
        label: "Back to Users",
      }}
    >
      {(user) => <UserEditor key={user.id} user={user} />}
    </FromList>
  );
}

const roleTeamSchema = z.object({ role: z.string(), teamId: z.string().optional() });
type RoleTeamForm = z.infer<typeof roleTeamSchema>;
const passwordSchema = z.object({
  password: z.string().min(1, "Enter the new password"),
  // Required for one's own account (checked by the server, which knows who is asking).
  currentPassword: z.string(),
});
type PasswordForm = z.infer<typeof passwordSchema>;

function UserEditor({ user }: { user: User }) {
  const client = useAccessClient();
  const invalidate = useInvalidateAccess();
  const caller = useCaller();
  const self = caller.username === user.username;
  const teamOptions = useTeamOptions();

  const roleTeam = useAccessForm<RoleTeamForm>({
    schema: roleTeamSchema,
    defaults: { role: String(user.role), teamId: user.teamId },
    rules: USER_FIELD_RULES,
  });
  const role = useWatch({ control: roleTeam.form.control, name: "role" });
  const isMember = roleOf(role) === Role.MEMBER;

  const password = useAccessForm<PasswordForm>({
    schema: passwordSchema,
    defaults: { password: "", currentPassword: "" },
    rules: USER_FIELD_RULES,
  });
  const [confirmPassword, setConfirmPassword] = useState<PasswordForm | undefined>();

  const [confirmDisable, setConfirmDisable] = useState(false);
  const [statusBusy, setStatusBusy] = useState(false);
  const disabled = user.disableTime !== undefined;

  const setDisabled = async (value: boolean) => {
    setStatusBusy(true);
    try {
      await client.updateUser({ id: user.id, disabled: value });
      await invalidate();
      toast.success(value ? `${user.username} disabled` : `${user.username} enabled`, {
        description: value
          ? "Their sessions ended and their API tokens were revoked."
          : "They can sign in again; their old API tokens stay revoked.",
      });
    } catch (e) {
      toast.error(`Couldn’t ${value ? "disable" : "enable"} ${user.username}`, {
        description: messageOf(e),
      });
    } finally {
      setStatusBusy(false);
      setConfirmDisable(false);
    }
  };

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        eyebrow={
          <Link href={"/users" as Route} className="hover:text-fg hover:underline">
            Users
          </Link>
        }
        title={<span className="font-mono">{user.username}</span>}
        description={
          <>
            {ROLE_LABELS[user.role]}
            {user.teamName ? ` in team ${user.teamName}` : ""}
            {disabled ? " · disabled" : ""}
            {user.createTime && (
              <>
                {" "}
                · created <RelativeTime date={timestampDate(user.createTime)} />
              </>
            )}
          </>
        }
        actions={
          <Link href={tokensOfHref(user.username)} className={buttonClass("secondary")}>
            API tokens
          </Link>
        }
      />

      <SectionForm
        form={roleTeam.form}
        title="Role and team"
        description={
          self
            ? "This is your own account: another admin changes your role."
            : "A member changes what their team owns; a viewer reads; an admin does everything."
        }
        submitLabel="Save role and team"
        busy={roleTeam.busy}
        error={roleTeam.error}
        disabled={!roleTeam.form.formState.isDirty}
        onSubmit={async (values) => {
          let saved: User | undefined;
          const ok = await roleTeam.run(async () => {
            saved = await client.updateUser({
              id: user.id,
              role: roleOf(values.role),
              teamId: roleOf(values.role) === Role.MEMBER ? (values.teamId ?? NO_TEAM) : NO_TEAM,
            });
          });
          if (!ok || saved === undefined) return;
          roleTeam.form.reset({ role: String(saved.role), teamId: saved.teamId });
          await invalidate();
          toast.success(`${saved.username} is now ${ROLE_LABELS[saved.role]}`, {
            description: saved.teamName ? `In team ${saved.teamName}.` : "In no team.",
          });
        }}
      >
        <FieldGrid columns={2}>
          <SelectField<RoleTeamForm> name="role" label="Role" options={ROLE_OPTIONS} />
          <SelectField<RoleTeamForm>
            name="teamId"
            label="Team"
            options={teamOptions}
            disabled={!isMember}
            hint={isMember ? undefined : "Only members belong to a team."}
          />
        </FieldGrid>
      </SectionForm>

      <SectionForm
        form={password.form}
        title="Password"
        description="A new password ends every session of the account (yours stays if it is you)."
        submitLabel="Reset password…"
        busy={password.busy}
        error={password.error}
        onSubmit={async (values) => setConfirmPassword(values)}
      >
        <FieldGrid columns={2}>
          <TextField<PasswordForm>
            name="password"
            label="New password"
            type="password"
            autoComplete="new-password"
          />
          {self ? (
            <TextField<PasswordForm>
              name="currentPassword"
              label="Current password"
              type="password"
              autoComplete="current-password"
              hint="Asked so that a session left open cannot take the account over."
            />
          ) : null}
        </FieldGrid>
      </SectionForm>

      <FormSection
        title="Account"
        description={
          disabled
            ? "Disabled: the account cannot sign in and has no working session or token."
            : "Disabling ends the account’s sessions and revokes its API tokens at once."
        }
        actions={
          disabled ? (
            <Button onClick={() => void setDisabled(false)} disabled={statusBusy}>
              Enable account
            </Button>
          ) : (
            <Button
              variant="danger"
              onClick={() => setConfirmDisable(true)}
              disabled={statusBusy || self}
              title={self ? "Another admin must disable your account" : undefined}
            >
              Disable account…
            </Button>
          )
        }
      >
        <p className="text-fg-muted">
          {disabled && user.disableTime ? (
            <>
              Disabled <RelativeTime date={timestampDate(user.disableTime)} />. Enabling lets them
              sign in again; revoked tokens stay revoked.
            </>
          ) : self ? (
            "You cannot disable your own account."
          ) : (
            "Active."
          )}
        </p>
      </FormSection>

      <ConfirmDialog
        open={confirmPassword !== undefined}
        title={`Reset ${user.username}’s password?`}
        confirmLabel="Reset password"
        danger
        busy={password.busy}
        onCancel={() => setConfirmPassword(undefined)}
        onConfirm={async () => {
          const values = confirmPassword ?? { password: "", currentPassword: "" };
          setConfirmPassword(undefined);
          const ok = await password.run(() =>
            client.updateUser({
              id: user.id,
              password: values.password,
              currentPassword: values.currentPassword,
            }),
          );
          if (!ok) return;
          password.form.reset({ password: "", currentPassword: "" });
          await invalidate();
          toast.success(`${user.username}’s password was reset`, {
            description: "Their other sessions ended and their API tokens were revoked.",
          });
        }}
      >
        Their sessions end and their API tokens are revoked (a token made with a stolen password or
        session would otherwise keep working); they sign in again with the new password.
      </ConfirmDialog>

      <ConfirmDialog
        open={confirmDisable}
        title={`Disable ${user.username}?`}
        confirmLabel="Disable account"
        danger
        busy={statusBusy}
        onCancel={() => setConfirmDisable(false)}
        onConfirm={() => void setDisabled(true)}
      >
        They are signed out everywhere and every API token of theirs is revoked, at once. You can
        enable the account again later; the tokens stay revoked.
      </ConfirmDialog>
    </div>
  );
}
