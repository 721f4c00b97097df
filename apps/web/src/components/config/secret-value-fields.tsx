"use client";

import { type Secret, SecretType } from "@switchyard/proto/switchyard/v1/config_pb";
import { type ChangeEvent, type ReactNode, useId } from "react";
import { useFormContext, useWatch } from "react-hook-form";
import { FieldError, ListError, TextAreaField, useFieldError } from "@/components/form/field";
import { FormSection } from "@/components/form/section";
import { Button } from "@/components/ui/button";
import { bytesToBase64, type SecretForm, type UploadedFile } from "@/lib/secret-form";

/*
 * The value fields of the secret form: a generic secret's value (a file of any bytes, or pasted
 * text) and session ticket keys (one 80-byte file per key, in order), both write-only, and what a
 * stored one shows instead of its values: each one's size and SHA-256.
 */

type F = SecretForm;

/** Reads a file's bytes into what the form holds of it (never shown: only its name and size). */
async function uploaded(file: File): Promise<UploadedFile> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  return { name: file.name, size: bytes.length, base64: bytesToBase64(bytes) };
}

const bytesWord = (n: number) => `${n} byte${n === 1 ? "" : "s"}`;

/** A generic secret's value: a file (any bytes) or pasted text; write-only. */
export function GenericValueFields({ stored }: { stored?: Secret | undefined }) {
  const { control, setValue } = useFormContext<F>();
  const file = useWatch({ control, name: "genericFile" });
  const valueSet = useWatch({ control, name: "valueSet" });
  const fileError = useFieldError("genericFile");
  const id = useId();
  const onChange = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0];
    event.target.value = "";
    if (!chosen) return;
    setValue("genericFile", await uploaded(chosen), { shouldDirty: true, shouldValidate: true });
    setValue("genericText", "", { shouldDirty: true });
  };
  const info = stored?.valueInfos[0];
  return (
    <>
      <div className="flex flex-col gap-1.5">
        <span className="text-[13px] font-medium text-fg">Value</span>
        <label htmlFor={id} className="text-xs text-accent hover:underline">
          Load from a file…
          <input
            id={id}
            type="file"
            className="sr-only"
            aria-label="Value file"
            aria-invalid={fileError ? true : undefined}
            aria-describedby={fileError ? `${id}-error` : undefined}
            onChange={onChange}
          />
        </label>
        {file && (
          <p className="flex items-center gap-2 text-xs text-fg-subtle">
            <span>
              {file.name} · {bytesWord(file.size)} (not shown)
            </span>
            <Button
              variant="ghost"
              className="h-6 px-2 text-xs"
              onClick={() =>
                setValue("genericFile", null, { shouldDirty: true, shouldValidate: true })
              }
            >
              Clear
            </Button>
          </p>
        )}
        <FieldError id={`${id}-error`} message={fileError} />
      </div>
      {!file && (
        <TextAreaField<F>
          name="genericText"
          label="Or paste the value"
          mono
          rows={3}
          autoComplete="off"
          placeholder={
            valueSet
              ? "A value is stored (never shown). Paste or upload a new one to replace it."
              : ""
          }
          hint={
            valueSet && info
              ? `Stored value: ${bytesWord(info.sizeBytes)}${info.sha256 ? `, SHA-256 ${info.sha256.slice(0, 16)}…` : ""}`
              : "Write-only: stored encrypted, never shown back. At most 64 KiB; a file may be binary."
          }
        />
      )}
      <ListError name="values" />
    </>
  );
}

/** Session ticket keys: one 80-byte file per key, in order (the first encrypts new tickets). */
export function TicketKeyFields({ stored }: { stored?: Secret | undefined }) {
  const { control, setValue, getValues } = useFormContext<F>();
  const keys = useWatch({ control, name: "ticketKeys" });
  const id = useId();
  const onChange = async (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = [...(event.target.files ?? [])];
    event.target.value = "";
    if (chosen.length === 0) return;
    const added = await Promise.all(chosen.map(uploaded));
    setValue("ticketKeys", [...getValues("ticketKeys"), ...added], {
      shouldDirty: true,
      shouldValidate: true,
    });
  };
  const remove = (index: number) =>
    setValue(
      "ticketKeys",
      keys.filter((_, i) => i !== index),
      { shouldDirty: true, shouldValidate: true },
    );
  return (
    <>
      <div className="flex flex-col gap-1.5">
        <span className="text-[13px] font-medium text-fg">Keys</span>
        <label htmlFor={id} className="text-xs text-accent hover:underline">
          Add key files…
          <input
            id={id}
            type="file"
            multiple
            className="sr-only"
            aria-label="Key files"
            onChange={onChange}
          />
        </label>
        <p className="text-xs text-fg-subtle">
          Each exactly 80 random bytes (<code>openssl rand 80 &gt; key</code>), added in order: the
          first encrypts new tickets, every one still decrypts tickets it issued.
          {stored?.valueSet
            ? " Keys are never shown back: to keep honouring tickets of the current key, upload it after the new one."
            : ""}
        </p>
      </div>
      {keys.length > 0 && (
        <ol className="flex flex-col gap-1 text-sm" aria-label="Key files to store">
          {keys.map((key, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the position is the key's meaning (its order), and rows hold no state
            <li key={index} className="flex items-center gap-2">
              <span className="font-mono text-xs">
                {index + 1}. {key.name} · {bytesWord(key.size)}
                {index === 0 ? " · encrypts new tickets" : ""}
              </span>
              <Button variant="ghost" className="h-6 px-2 text-xs" onClick={() => remove(index)}>
                Remove
              </Button>
            </li>
          ))}
        </ol>
      )}
      <ListError name="ticketKeys" />
      <ListError name="values" />
    </>
  );
}

/** What is stored of a value secret: each value's size and SHA-256 (then `children`). */
export function StoredValues({ stored, children }: { stored: Secret; children?: ReactNode }) {
  const keys = stored.type === SecretType.SESSION_TICKET_KEYS;
  return (
    <FormSection
      title={keys ? "Stored keys" : "Stored value"}
      description="As stored (output only): never the value."
    >
      <ul className="flex flex-col gap-1 text-sm">
        {stored.valueInfos.map((info, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the stored order is the keys' meaning
          <li key={index} className="font-mono text-xs">
            {keys ? `key ${index + 1}${index === 0 ? " (encrypts new tickets)" : ""}: ` : ""}
            {bytesWord(info.sizeBytes)}
            {/* The digest is shown to admins only (the API leaves it empty for other readers). */}
            {info.sha256 ? ` · SHA-256 ${info.sha256}` : ""}
          </li>
        ))}
      </ul>
      {children}
    </FormSection>
  );
}
