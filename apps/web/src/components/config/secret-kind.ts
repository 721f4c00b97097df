"use client";

import type { Secret } from "@switchyard/proto/switchyard/v1/config_pb";
import type { Route } from "next";
import { useMemo } from "react";
import {
  emptySecretForm,
  type SecretForm,
  secretFieldMap,
  secretFormOf,
  secretFormSchema,
  secretOfForm,
} from "@/lib/secret-form";
import type { EditorKind } from "./config-editor";
import { secretHref } from "./hrefs";
import { orMissing, useConfigClient } from "./use-config-client";

/**
 * What the editor needs to know of this kind (config-editor.tsx): its form, schema and calls.
 * One module per kind, so an editor page loads its own kind's form code and no other's.
 */
export function useSecretKind(): EditorKind<Secret, SecretForm> {
  const client = useConfigClient();
  return useMemo(
    () => ({
      label: "secret",
      listHref: "/secrets" as Route,
      listLabel: "Secrets",
      hrefOf: secretHref,
      schema: secretFormSchema,
      empty: emptySecretForm,
      fieldMap: secretFieldMap,
      formOf: secretFormOf,
      messageOf: (form) => secretOfForm(form),
      create: (m) => client.createSecret(m),
      update: (m) => client.updateSecret(m),
      remove: (name) => client.deleteSecret({ name }),
      current: (name) => orMissing(client.getSecret({ name })),
    }),
    [client],
  );
}
