"use client";

import { timestampDate } from "@bufbuild/protobuf/wkt";
import { useQuery } from "@connectrpc/connect-query";
import { ConfigService, type Secret, SecretType } from "@switchyard/proto/switchyard/v1/config_pb";
import type { ColumnDef } from "@tanstack/react-table";
import type { Route } from "next";
import { type ChangeEvent, useId, useMemo } from "react";
import { type Path, useFormContext, useWatch } from "react-hook-form";
import { SelectField, TextAreaField, TextField } from "@/components/form/field";
import { FormSection } from "@/components/form/section";
import { KeyIcon } from "@/components/ui/icons";
import { Link } from "@/components/ui/link";
import { enumName } from "@/lib/proto-enum";
import {
  expiryOf,
  SECRET_TYPES,
  type SecretForm,
  type SecretFormType,
  valueSizeOf,
} from "@/lib/secret-form";
import { ConfigEditor } from "./config-editor";
import { ConfigList, nameColumn, updatedColumn } from "./config-list";
import { DeleteRowButton } from "./delete-row-button";
import { clusterHref, listenerHref, secretHref } from "./hrefs";
import { Loaded } from "./loaded";
import { useSecretKind } from "./secret-kind";
import { GenericValueFields, StoredValues, TicketKeyFields } from "./secret-value-fields";
import { useConfigClient } from "./use-config-client";

type F = SecretForm;

/** One per SecretType (secret-form.ts SECRET_TYPES): the list's column, and the form's choice. */
const typeLabels: Record<SecretFormType, string> = {
  TLS_CERTIFICATE: "TLS certificate",
  VALIDATION_CONTEXT: "Validation context",
  GENERIC_SECRET: "Generic secret",
  SESSION_TICKET_KEYS: "Session ticket keys",
};
const typeChoices: Record<SecretFormType, string> = {
  TLS_CERTIFICATE: "TLS certificate (a listener presents it)",
  VALIDATION_CONTEXT: "Validation context (a cluster checks upstreams with it)",
  GENERIC_SECRET: "Generic secret (a filter reads it: OAuth2, credential injector, …)",
  SESSION_TICKET_KEYS: "Session ticket keys (a listener resumes TLS sessions with them)",
};

const typeLabel = (type: SecretType) =>
  typeLabels[enumName(SecretType, type, SECRET_TYPES, "TLS_CERTIFICATE")];

/** The leaf certificate's notAfter, red once past, amber within 30 days. */
function ExpiryCell({ secret }: { secret: Secret }) {
  const expiry = expiryOf(secret);
  if (expiry.t === "none") return <span className="text-fg-subtle">—</span>;
  const date = expiry.at.toISOString().slice(0, 10);
  if (expiry.t === "expired")
    return (
      <span className="font-medium text-danger" title={expiry.at.toISOString()}>
        {date} · expired
      </span>
    );
  if (expiry.t === "soon")
    return (
      <span className="font-medium text-warning" title={expiry.at.toISOString()}>
        {date} · in {expiry.days} day{expiry.days === 1 ? "" : "s"}
      </span>
    );
  return <span title={expiry.at.toISOString()}>{date}</span>;
}

/** "listener/edge" → a link to the listener. */
function UserLink({ user }: { user: string }) {
  const [kind, ...rest] = user.split("/");
  const name = rest.join("/");
  const href = kind === "cluster" ? clusterHref(name) : listenerHref(name);
  return (
    <Link href={href} className="font-mono text-xs text-accent hover:underline">
      {user}
    </Link>
  );
}

export function SecretList() {
  const query = useQuery(ConfigService.method.listSecrets, {});
  const client = useConfigClient();
  const columns = useMemo<ColumnDef<Secret, unknown>[]>(
    () => [
      nameColumn<Secret>(secretHref),
      {
        id: "type",
        header: "Type",
        accessorFn: (s) => typeLabel(s.type),
      },
      {
        id: "size",
        header: "Size",
        enableSorting: false,
        cell: ({ row }) => valueSizeOf(row.original) ?? <span className="text-fg-subtle">—</span>,
      },
      {
        id: "subject",
        header: "Subject",
        enableSorting: false,
        cell: ({ row }) => {
          const leaf = row.original.certificates[0];
          if (!leaf) return <span className="text-fg-subtle">—</span>;
          return (
            <span className="flex flex-col gap-0.5">
              <span>{leaf.subject}</span>
              {leaf.subjectAltNames.length > 0 && (
                <span className="text-xs text-fg-subtle">{leaf.subjectAltNames.join(", ")}</span>
              )}
            </span>
          );
        },
      },
      {
        id: "expires",
        header: "Expires",
        accessorFn: (s) => {
          const at = s.certificates[0]?.notAfter;
          return at ? timestampDate(at).getTime() : Number.POSITIVE_INFINITY;
        },
        cell: ({ row }) => <ExpiryCell secret={row.original} />,
      },
      {
        id: "fingerprint",
        header: "SHA-256 fingerprint",
        enableSorting: false,
        cell: ({ row }) => {
          // A value secret's fingerprint is its first value's SHA-256 (`sha256sum FILE`), which
          // the API gives admins only.
          const fingerprint =
            row.original.certificates[0]?.fingerprintSha256 ??
            row.original.valueInfos[0]?.sha256 ??
            "";
          if (fingerprint === "") return <span className="text-fg-subtle">—</span>;
          return (
            <span className="flex flex-col gap-0.5 font-mono text-xs" title={fingerprint}>
              <span>{fingerprint.slice(0, 23)}…</span>
              {row.original.privateKeySet && (
                <span className="text-fg-subtle">
                  key set · {row.original.publicKeySha256.slice(0, 12)}…
                </span>
              )}
            </span>
          );
        },
      },
      {
        id: "usedBy",
        header: "Used by",
        enableSorting: false,
        cell: ({ row }) =>
          row.original.usedBy.length === 0 ? (
            <span className="text-fg-subtle">nothing</span>
          ) : (
            <span className="flex flex-col gap-0.5">
              {row.original.usedBy.map((user) => (
                <UserLink key={user} user={user} />
              ))}
            </span>
          ),
      },
      updatedColumn<Secret>(),
      {
        id: "actions",
        header: () => <span className="sr-only">Actions</span>,
        enableSorting: false,
        cell: ({ row }) => (
          <div className="flex justify-end">
            {row.original.usedBy.length > 0 ? (
              <span
                className="text-xs text-fg-subtle"
                title={`Used by ${row.original.usedBy.join(", ")}: point them at another secret first`}
              >
                In use
              </span>
            ) : (
              <DeleteRowButton
                label="secret"
                name={row.original.name}
                remove={(name) => client.deleteSecret({ name })}
                consequence="Proxies that subscribe to it lose it once this is published."
              />
            )}
          </div>
        ),
      },
    ],
    [client],
  );
  return (
    <ConfigList
      creates="secret"
      query={query}
      rowsOf={(data) => data.secrets}
      title="Secrets"
      description="TLS certificates that listeners present, CA bundles that clusters check upstreams with, generic secrets that filters read (OAuth2, credential injectors) and TLS session ticket keys, served over SDS. Private keys and values are stored encrypted and never shown back."
      newHref={"/secrets/new" as Route}
      newLabel="Upload secret"
      what="secrets"
      empty={{
        icon: <KeyIcon className="size-5" />,
        title: "No secrets",
        action: "Upload a secret",
        children:
          "A TLS certificate (with its private key) is what a listener presents; a validation context (trusted CAs) is what a cluster checks its upstreams with; a generic secret is a value a filter reads; session ticket keys let a listener resume TLS sessions across proxies.",
      }}
      table={{
        caption: "Secrets",
        columns,
        searchPlaceholder: "Search by name, subject or SAN…",
        searchText: (s) =>
          [s.name, ...s.certificates.flatMap((c) => [c.subject, ...c.subjectAltNames])].join(" "),
      }}
    />
  );
}

/** Loads a PEM file into a form field (the text stays editable). */
function PemFileInput({ name, label }: { name: Path<F>; label: string }) {
  const { setValue } = useFormContext<F>();
  const id = useId();
  const onChange = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (!file) return;
    setValue(name, await file.text(), { shouldDirty: true, shouldValidate: true });
    event.target.value = "";
  };
  return (
    <label htmlFor={id} className="text-xs text-accent hover:underline">
      Load from a file…
      <input
        id={id}
        type="file"
        accept=".pem,.crt,.cer,.key,text/plain"
        className="sr-only"
        aria-label={label}
        onChange={onChange}
      />
    </label>
  );
}

function UsedBy({ stored }: { stored: Secret }) {
  if (stored.usedBy.length === 0) return null;
  return (
    <p className="text-sm">
      Used by{" "}
      {stored.usedBy.map((user, i) => (
        <span key={user}>
          {i > 0 && ", "}
          <UserLink user={user} />
        </span>
      ))}
      : a rotation reaches their proxies without touching them.
    </p>
  );
}

function SecretFields({ editing, stored }: { editing: boolean; stored?: Secret }) {
  const { control } = useFormContext<F>();
  const type = useWatch({ control, name: "type" });
  const keySet = useWatch({ control, name: "keySet" });
  return (
    <>
      <FormSection
        title="Secret"
        description="Listeners and clusters name a secret in their TLS secret field, filters and TLS contexts in an SDS config; proxies fetch it by this name over SDS."
      >
        <TextField<F> name="name" label="Name" mono readOnly={editing} />
        <SelectField<F>
          name="type"
          label="Type"
          disabled={editing}
          options={SECRET_TYPES.map((t) => ({ value: t, label: typeChoices[t] }))}
        />
      </FormSection>
      {type === "TLS_CERTIFICATE" ? (
        <FormSection
          title="Certificate and key"
          description={
            editing
              ? "To rotate, load the new certificate chain and its private key. Leave the key empty to keep the stored one (only if the new certificate is for the same key)."
              : "The certificate chain, leaf first, and the leaf’s private key, both PEM."
          }
        >
          <div className="flex flex-col gap-1">
            <PemFileInput name="certificateChain" label="Certificate chain file" />
            <TextAreaField<F>
              name="certificateChain"
              label="Certificate chain (PEM)"
              mono
              rows={6}
              placeholder="-----BEGIN CERTIFICATE-----"
            />
          </div>
          <div className="flex flex-col gap-1">
            <PemFileInput name="privateKey" label="Private key file" />
            <TextAreaField<F>
              name="privateKey"
              label="Private key (PEM)"
              mono
              rows={4}
              autoComplete="off"
              placeholder={
                keySet
                  ? "A key is stored (never shown). Paste a new one to replace it."
                  : "-----BEGIN PRIVATE KEY-----"
              }
              hint={
                keySet && stored
                  ? `Stored key: public key SHA-256 ${stored.publicKeySha256.slice(0, 16)}…`
                  : "Write-only: stored encrypted, never shown back."
              }
            />
          </div>
          <TextField<F>
            name="passphrase"
            label="Passphrase (only for an encrypted key)"
            type="password"
            autoComplete="off"
          />
        </FormSection>
      ) : type === "GENERIC_SECRET" ? (
        <FormSection
          title="Value"
          description={
            editing
              ? "To rotate, upload or paste the new value. Leave both empty to keep the stored one."
              : "The bytes a filter reads (a token, a password, an HMAC key, a credentials file)."
          }
        >
          <GenericValueFields stored={stored} />
        </FormSection>
      ) : type === "SESSION_TICKET_KEYS" ? (
        <FormSection
          title="Session ticket keys"
          description={
            editing
              ? "To rotate, upload the new key first, then the current one. Add none to keep the stored keys."
              : "The keys a listener encrypts and decrypts TLS session tickets with."
          }
        >
          <TicketKeyFields stored={stored} />
        </FormSection>
      ) : (
        <FormSection
          title="Trusted CAs"
          description="Upstream certificates must chain to one of these CAs; optionally, carry one of the SANs below."
        >
          <div className="flex flex-col gap-1">
            <PemFileInput name="trustedCa" label="CA bundle file" />
            <TextAreaField<F>
              name="trustedCa"
              label="CA certificates (PEM)"
              mono
              rows={6}
              placeholder="-----BEGIN CERTIFICATE-----"
            />
          </div>
          <TextAreaField<F>
            name="matchSans"
            label="DNS SANs to match"
            mono
            rows={2}
            hint="One per line or comma-separated; empty accepts any certificate the CAs signed."
          />
        </FormSection>
      )}
      {stored && stored.certificates.length > 0 && (
        <FormSection title="Certificates" description="As stored (output only).">
          <ul className="flex flex-col gap-2 text-sm">
            {stored.certificates.map((c) => (
              <li key={c.fingerprintSha256} className="rounded-lg border px-3 py-2">
                <div className="font-medium">{c.subject}</div>
                <div className="text-xs text-fg-subtle">issued by {c.issuer}</div>
                {c.subjectAltNames.length > 0 && (
                  <div className="text-xs">{c.subjectAltNames.join(", ")}</div>
                )}
                <div className="text-xs">
                  valid {c.notBefore ? timestampDate(c.notBefore).toISOString().slice(0, 10) : "?"}{" "}
                  to {c.notAfter ? timestampDate(c.notAfter).toISOString().slice(0, 10) : "?"}
                </div>
                <div className="break-all font-mono text-[11px] text-fg-subtle">
                  SHA-256 {c.fingerprintSha256}
                </div>
              </li>
            ))}
          </ul>
          <UsedBy stored={stored} />
        </FormSection>
      )}
      {stored?.valueSet && (
        <StoredValues stored={stored}>
          <UsedBy stored={stored} />
        </StoredValues>
      )}
    </>
  );
}

export function NewSecret() {
  const kind = useSecretKind();
  return (
    <ConfigEditor
      kind={kind}
      original={undefined}
      description="Saved to the draft; proxies get it when the draft is published."
    >
      <SecretFields editing={false} />
    </ConfigEditor>
  );
}

export function EditSecret({ name }: { name: string }) {
  const kind = useSecretKind();
  const query = useQuery(ConfigService.method.getSecret, { name }, { staleTime: 0 });
  return (
    <Loaded query={query} what="secret" listHref={kind.listHref} listLabel={kind.listLabel}>
      {(secret: Secret) => (
        <ConfigEditor key={secret.name} kind={kind} original={secret}>
          <SecretFields editing stored={secret} />
        </ConfigEditor>
      )}
    </Loaded>
  );
}
