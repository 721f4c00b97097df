"use client";

import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import { AccessService, type ApiToken, Role } from "@switchyard/proto/switchyard/v1/access_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { z } from "zod";
import { ConfigTable } from "@/components/config/config-table";
import { Chip } from "@/components/config/states";
import { ConfirmDialog } from "@/components/form/confirm-dialog";
import { inputClass, ListError, SelectField, TextField } from "@/components/form/field";
import { FieldGrid } from "@/components/form/section";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { KeyIcon } from "@/components/ui/icons";
import { EmptyState, LoadError, PageHeader, TableSkeleton } from "@/components/ui/page-states";
import { RelativeTime } from "@/components/ui/relative-time";
import { messageOf, TOKEN_FIELD_RULES } from "@/lib/access-errors";
import { scopesFor, TOKEN_EXPIRY_DAYS } from "@/lib/access-labels";
import { SectionForm, useAccessForm } from "./access-form";
import { useAccessClient, useInvalidateAccess } from "./use-access-client";
import { useCaller } from "./use-caller";

const DAY_MS = 86_400_000;

type TokenState = "active" | "revoked" | "expired";

function stateOf(token: ApiToken, now: number): TokenState {
  if (token.revokeTime) return "revoked";
  if (token.expireTime && timestampDate(token.expireTime).getTime() <= now) return "expired";
  return "active";
}

/**
 * API tokens: the caller's own (everyone), or, for an admin, another user's (`?user=NAME`).
 * A token is created with the caller's session (the API refuses tokens minting tokens), after the
 * password is asked again when it was not entered in the last few minutes (ReauthDialog), its
 * secret shown once, and revoked after a confirmation.
 */
export function TokensView() {
  const caller = useCaller();
  const params = useSearchParams();
  const router = useRouter();
  const requested = params.get("user") ?? "";
  const isAdmin = caller.role === "admin";
  const users = useQuery(AccessService.method.listUsers, {}, { enabled: isAdmin });
  // Another user's tokens: admins only, by id (ListTokens.user_id).
  const other =
    isAdmin && requested !== "" && requested !== caller.username
      ? users.data?.users.find((u) => u.username === requested)
      : undefined;
  const waitingForUser =
    isAdmin && requested !== "" && requested !== caller.username && !users.data;
  const own = other === undefined;
  const tokens = useQuery(
    AccessService.method.listTokens,
    { userId: other?.id ?? "" },
    { enabled: caller.role !== undefined && !waitingForUser },
  );
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ name: string; secret: string } | undefined>();
  const selectId = useId();

  const body = tokens.data ? (
    tokens.data.tokens.length === 0 ? (
      <EmptyState
        icon={<KeyIcon className="size-5" />}
        title={own ? "No API tokens yet" : `${requested} has no API tokens`}
        actions={
          own && !creating ? (
            <Button variant="primary" onClick={() => setCreating(true)}>
              Create a token
            </Button>
          ) : undefined
        }
      >
        An API token lets a script, CI job or the CLI call the API as {own ? "you" : requested},
        limited to its scopes. <code className="font-mono">switchyard login</code> creates one for
        the CLI; give each CI job its own, with only the scopes it needs.
      </EmptyState>
    ) : (
      <TokenTable tokens={tokens.data.tokens} />
    )
  ) : tokens.error ? (
    <LoadError
      what="API tokens"
      error={tokens.error}
      retrying={tokens.isFetching}
      onRetry={() => void tokens.refetch()}
    />
  ) : (
    <TableSkeleton label="API tokens" />
  );

  return (
    <div className="flex flex-col gap-6">
      <PageHeader
        title="API tokens"
        description={
          own
            ? "Tokens act as you, narrowed to their scopes. Revoke one and it stops working at once."
            : `The tokens of ${requested}. Revoking one stops it at once.`
        }
        actions={
          <>
            {isAdmin && users.data && (
              <div className="flex items-center gap-2">
                <label htmlFor={selectId} className="text-[13px] font-medium text-fg-muted">
                  Tokens of
                </label>
                <select
                  id={selectId}
                  value={other?.username ?? caller.username ?? ""}
                  onChange={(e) => {
                    const user = e.target.value;
                    setCreating(false);
                    setSecret(undefined);
                    router.replace(
                      (user === caller.username
                        ? "/tokens"
                        : `/tokens?user=${encodeURIComponent(user)}`) as Route,
                    );
                  }}
                  className={`${inputClass} w-44 pr-8`}
                >
                  {users.data.users.map((u) => (
                    <option key={u.id} value={u.username}>
                      {u.username === caller.username ? `${u.username} (you)` : u.username}
                    </option>
                  ))}
                </select>
              </div>
            )}
            {own && !creating && (
              <Button variant="primary" onClick={() => setCreating(true)}>
                New token
              </Button>
            )}
          </>
        }
      />
      {secret && <SecretPanel {...secret} onDone={() => setSecret(undefined)} />}
      {own && creating && (
        <CreateTokenForm
          role={caller.roleValue}
          onCancel={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setSecret(created);
          }}
        />
      )}
      {body}
    </div>
  );
}

/** The new token's secret, once: copy it now or never. */
function SecretPanel({
  name,
  secret,
  onDone,
}: {
  name: string;
  secret: string;
  onDone: () => void;
}) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <section
      ref={ref}
      tabIndex={-1}
      aria-labelledby="token-secret-heading"
      className="rounded-xl border border-warning-border bg-warning-soft p-5 outline-none"
    >
      <h2 id="token-secret-heading" className="text-[15px] font-semibold text-fg">
        Token “{name}” created: copy it now
      </h2>
      <p className="mt-1 text-fg-muted">
        You will not see it again: the server keeps only its hash. If you lose it, revoke it and
        create another.
      </p>
      <div className="mt-3 flex items-center gap-2">
        <input
          readOnly
          value={secret}
          aria-label="Token secret"
          spellCheck={false}
          onFocus={(e) => e.currentTarget.select()}
          className={`${inputClass} min-w-0 flex-1 font-mono text-[13px]`}
        />
        <CopyButton
          text={secret}
          label="Copy token"
          className="grid size-8 shrink-0 place-items-center rounded-md border bg-surface text-fg-muted hover:text-fg"
        />
      </div>
      <p className="mt-3 text-[13px] text-fg-muted">
        Use it as <code className="font-mono">Authorization: Bearer …</code>, or{" "}
        <code className="font-mono">SWITCHYARD_TOKEN=… switchyard whoami</code>.
      </p>
      <Button className="mt-4" onClick={onDone}>
        I have copied it
      </Button>
    </section>
  );
}

const newTokenSchema = z.object({
  name: z.string().trim().min(1, "Name the token after what will use it, e.g. “ci-deploy”"),
  scopes: z.array(z.string()).min(1, "Choose at least one scope"),
  expiresInDays: z.string(),
});
type NewTokenForm = z.infer<typeof newTokenSchema>;

function CreateTokenForm({
  role,
  onCancel,
  onCreated,
}: {
  role: Role | undefined;
  onCancel: () => void;
  onCreated: (created: { name: string; secret: string }) => void;
}) {
  const client = useAccessClient();
  const invalidate = useInvalidateAccess();
  const scopes = scopesFor(role ?? Role.VIEWER);
  const { form, error, busy, run } = useAccessForm<NewTokenForm>({
    schema: newTokenSchema,
    defaults: {
      name: "",
      scopes: ["config:read", "status:read"],
      expiresInDays: "90",
    },
    rules: TOKEN_FIELD_RULES,
  });
  useEffect(() => form.setFocus("name"), [form]);
  return (
    <SectionForm
      form={form}
      title="New token"
      description="A token outlives your session, so it takes your password from the last 5 minutes (you are asked for it if need be); a token can never create or revoke tokens."
      submitLabel="Create token"
      busy={busy}
      error={error}
      onSubmit={async (values) => {
        const days = Number(values.expiresInDays);
        let created: { name: string; secret: string } | undefined;
        const ok = await run(async () => {
          const response = await client.createToken({
            name: values.name,
            scopes: values.scopes,
            expireTime: timestampFromDate(new Date(Date.now() + days * DAY_MS)),
          });
          created = { name: response.token?.name ?? values.name, secret: response.secret };
        });
        if (!ok || created === undefined) return;
        await invalidate();
        onCreated(created);
      }}
    >
      <FieldGrid columns={2}>
        <TextField<NewTokenForm> name="name" label="Name" mono placeholder="ci-deploy" />
        <SelectField<NewTokenForm>
          name="expiresInDays"
          label="Expires"
          options={TOKEN_EXPIRY_DAYS}
        />
      </FieldGrid>
      <fieldset className="flex flex-col gap-1.5">
        <legend className="mb-1 text-[13px] font-medium">Scopes</legend>
        {scopes.map((s) => (
          <label key={s.scope} className="flex items-center gap-2 text-[13px]">
            <input
              type="checkbox"
              value={s.scope}
              className="size-4 accent-accent"
              {...form.register("scopes")}
            />
            <span className="font-mono">{s.scope}</span>
            <span className="text-fg-muted">{s.label}</span>
          </label>
        ))}
        <p className="text-xs text-fg-subtle">
          Only the scopes your role can use are offered: a token never exceeds its user’s role.
        </p>
        <ListError name="scopes" />
      </fieldset>
      <div>
        <Button variant="ghost" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
      </div>
    </SectionForm>
  );
}

function TokenTable({ tokens }: { tokens: readonly ApiToken[] }) {
  const client = useAccessClient();
  const invalidate = useInvalidateAccess();
  const [revoking, setRevoking] = useState<ApiToken | undefined>();
  const [busy, setBusy] = useState(false);
  const columns = useMemo<ColumnDef<ApiToken, unknown>[]>(() => {
    const time = (label: string, of: (t: ApiToken) => ApiToken["createTime"], none: string) =>
      ({
        id: label.toLowerCase().replace(/\s+/g, "-"),
        header: label,
        accessorFn: (t: ApiToken) => {
          const v = of(t);
          return v ? Number(v.seconds) : 0;
        },
        cell: ({ row }: { row: { original: ApiToken } }) => {
          const v = of(row.original);
          return v ? (
            <RelativeTime date={timestampDate(v)} />
          ) : (
            <span className="text-fg-subtle">{none}</span>
          );
        },
      }) satisfies ColumnDef<ApiToken, unknown>;
    return [
      {
        id: "name",
        header: "Name",
        accessorFn: (t) => t.name,
        cell: ({ row }) => <span className="font-mono text-[13px]">{row.original.name}</span>,
      },
      {
        id: "scopes",
        header: "Scopes",
        enableSorting: false,
        cell: ({ row }) => (
          <span className="flex flex-wrap gap-1">
            {row.original.scopes.map((s) => (
              <Chip key={s}>
                <span className="font-mono">{s}</span>
              </Chip>
            ))}
          </span>
        ),
      },
      time("Created", (t) => t.createTime, ""),
      time("Last used", (t) => t.lastUsedTime, "never"),
      time("Expires", (t) => t.expireTime, "never"),
      {
        id: "state",
        header: "Status",
        accessorFn: (t) => stateOf(t, Date.now()),
        cell: ({ row }) => {
          const state = stateOf(row.original, Date.now());
          return state === "active" ? "active" : <Chip tone="warning">{state}</Chip>;
        },
      },
      {
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        enableSorting: false,
        cell: ({ row }) =>
          row.original.revokeTime ? null : (
            <div className="flex justify-end">
              <Button
                variant="ghost"
                onClick={() => setRevoking(row.original)}
                aria-label={`Revoke token ${row.original.name}`}
              >
                Revoke
              </Button>
            </div>
          ),
      },
    ];
  }, []);
  return (
    <>
      <ConfigTable
        caption="API tokens"
        data={tokens}
        columns={columns}
        searchPlaceholder="Search by name or scope…"
        searchText={(t) => [t.name, ...t.scopes].join(" ")}
      />
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke token “${revoking?.name ?? ""}”?`}
        confirmLabel="Revoke token"
        danger
        busy={busy}
        onCancel={() => setRevoking(undefined)}
        onConfirm={async () => {
          if (!revoking) return;
          setBusy(true);
          try {
            await client.revokeToken({ id: revoking.id });
            await invalidate();
            toast.success(`Token “${revoking.name}” revoked`, {
              description: "Calls made with it are refused from now on.",
            });
          } catch (e) {
            toast.error(`Couldn’t revoke token “${revoking.name}”`, {
              description: messageOf(e),
            });
          } finally {
            setBusy(false);
            setRevoking(undefined);
          }
        }}
      >
        Every script or CLI using it is refused from the next call on. This cannot be undone.
      </ConfirmDialog>
    </>
  );
}
