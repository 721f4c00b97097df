"use client";

import { useQuery } from "@connectrpc/connect-query";
import { ConfigService, type SecretType } from "@switchyard/proto/switchyard/v1/config_pb";

/** `<datalist>` of the stored secrets of one type, for the TLS secret fields of other editors. */
export function SecretOptions({ id, type }: { id: string; type: SecretType }) {
  const query = useQuery(ConfigService.method.listSecrets, {});
  return (
    <datalist id={id}>
      {(query.data?.secrets ?? [])
        .filter((s) => s.type === type)
        .map((s) => (
          <option key={s.name} value={s.name}>
            {s.certificates[0]?.subject ?? s.name}
          </option>
        ))}
    </datalist>
  );
}
