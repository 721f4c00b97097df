import type { Metadata, Viewport } from "next";
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

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en" className={inter.variable}>
      <head>
        {/* The page's first API calls, started before the console's JavaScript has loaded. */}
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: our own static script */}
        <script dangerouslySetInnerHTML={{ __html: earlyRequestsScript() }} />
      </head>
      <body>
        <Providers>
          <AppShell>{children}</AppShell>
        </Providers>
      </body>
    </html>
  );
}
