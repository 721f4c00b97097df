import type { Metadata } from "next";
import { Link } from "@/components/ui/link";

export const metadata: Metadata = { title: "Page not found" };

export default function NotFound() {
  return (
    <section className="py-16 text-center">
      <p className="font-mono text-sm text-fg-subtle">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-fg">Page not found</h1>
      <p className="mt-2 text-fg-muted">There is no console page at this address.</p>
      <Link
        href="/"
        className="mt-6 inline-flex h-8 items-center rounded-md bg-accent px-3 font-medium text-accent-fg hover:bg-accent/90"
      >
        Go to Configuration
      </Link>
    </section>
  );
}
