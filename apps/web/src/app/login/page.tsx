import type { Metadata } from "next";
import { Suspense } from "react";
import { LoginForm } from "@/components/access/login-form";

export const metadata: Metadata = { title: "Sign in" };

export default function LoginPage() {
  // useSearchParams (the page to return to) needs a suspense boundary in a static page.
  return (
    <Suspense>
      <LoginForm />
    </Suspense>
  );
}
