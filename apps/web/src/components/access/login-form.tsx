"use client";

import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { useTransport } from "@connectrpc/connect-query";
import { zodResolver } from "@hookform/resolvers/zod";
import { AccessService } from "@switchyard/proto/switchyard/v1/access_pb";
import { useQueryClient } from "@tanstack/react-query";
import type { Route } from "next";
import { useRouter, useSearchParams } from "next/navigation";
import { useMemo, useState } from "react";
import { FormProvider, useForm } from "react-hook-form";
import { z } from "zod";
import { TextField } from "@/components/form/field";
import { Button } from "@/components/ui/button";
import { AlertTriangleIcon } from "@/components/ui/icons";
import { safeNextPath } from "@/lib/next-path";

const schema = z.object({
  username: z.string().trim().min(1, "Enter your username."),
  password: z.string().min(1, "Enter your password."),
});
type LoginValues = z.input<typeof schema>;

/**
 * Signs in with a username and password. The server sets an HTTP-only session cookie; the page
 * then returns to where the user was sent from (`?next=`), or the overview.
 */
export function LoginForm() {
  const transport = useTransport();
  const client = useMemo(() => createClient(AccessService, transport), [transport]);
  const queryClient = useQueryClient();
  const router = useRouter();
  const next = safeNextPath(useSearchParams().get("next"));
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const form = useForm<LoginValues>({
    resolver: zodResolver(schema),
    defaultValues: { username: "", password: "" },
  });

  const submit = form.handleSubmit(async (values) => {
    setFailure(undefined);
    try {
      await client.login({ username: values.username.trim(), password: values.password });
    } catch (error) {
      const connectError = ConnectError.from(error);
      setFailure(
        connectError.code === Code.ResourceExhausted
          ? `Too many sign-in attempts: ${connectError.rawMessage}.`
          : connectError.code === Code.Unauthenticated
            ? "Wrong username or password."
            : `Signing in failed: ${connectError.rawMessage}`,
      );
      form.setValue("password", "");
      return;
    }
    // Everything cached before signing in belongs to no one: read it again as this user.
    queryClient.clear();
    // A path on this console (safeNextPath), not a typed route.
    router.replace(next as Route);
  });

  return (
    <div className="mx-auto mt-12 w-full max-w-sm">
      <h1 className="mb-1 text-xl font-semibold tracking-tight">Sign in to Switchyard</h1>
      <p className="mb-6 text-sm text-fg-muted">
        Use the account an admin gave you. On a first start, the admin password is printed once by{" "}
        <code>npm start</code>.
      </p>
      <FormProvider {...form}>
        <form
          noValidate
          aria-label="Sign in"
          className="flex flex-col gap-4"
          onSubmit={(event) => void submit(event)}
        >
          <TextField<LoginValues> name="username" label="Username" autoComplete="username" />
          <TextField<LoginValues>
            name="password"
            label="Password"
            type="password"
            autoComplete="current-password"
          />
          {failure && (
            <p
              role="alert"
              className="flex gap-2 rounded-lg border border-danger-border bg-danger-soft px-3 py-2.5 text-sm text-fg"
            >
              <AlertTriangleIcon className="mt-0.5 size-4 shrink-0 text-danger" />
              {failure}
            </p>
          )}
          <Button type="submit" variant="primary" disabled={form.formState.isSubmitting}>
            {form.formState.isSubmitting ? "Signing in…" : "Sign in"}
          </Button>
        </form>
      </FormProvider>
    </div>
  );
}
