import type { Metadata } from "next";
import { LoginForm } from "@/components/access/login-form";
import { BrowserOnly } from "@/components/ui/browser-only";

export const metadata: Metadata = { title: "Sign in" };

export default function LoginPage() {
  // The page to return to is read from the URL (useSearchParams): drawn in the browser.
  return (
    <BrowserOnly fallback={null}>
      <LoginForm />
    </BrowserOnly>
  );
}
