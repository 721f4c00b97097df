import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { AppShell } from "@/components/shell/app-shell";
import { earlyRequestsScript } from "@/lib/early-requests";
import { inter } from "./fonts";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { template: "%s · Switchyard", default: "Switchyard" },
  description: "Switchyard: the configuration console for an Envoy fleet.",
  applicationName: "Switchyard",
  // An operator console is never meant to be indexed.
  robots: { index: false, follow: false },
};

export const viewport: Viewport = {
  colorScheme: "light dark",
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#fafafa" },
    { media: "(prefers-color-scheme: dark)", color: "#09090b" },
  ],
};

/**
 * Every page is rendered per request, for its nonce: the Switchyard server sends each response a
 * Content-Security-Policy with a nonce of its own and hands it to the console in the `x-nonce`
 * request header (@switchyard/server content-security-policy.ts). Next.js puts it on the scripts
 * it writes; this layout on its own. A page built ahead could carry no nonce, and its scripts would
 * not run. (Under `next dev` there is no such header and no policy.)
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    <html lang="en" className={inter.variable}>
      <head>
        {/* The page's first API calls, started before the console's JavaScript has loaded. */}
        <script
          nonce={nonce}
          // biome-ignore lint/security/noDangerouslySetInnerHtml: our own static script
          dangerouslySetInnerHTML={{ __html: earlyRequestsScript() }}
        />
      </head>
      <body>
        <Providers>
          <AppShell>{children}</AppShell>
        </Providers>
      </body>
    </html>
  );
}
