import localFont from "next/font/local";

/**
 * Inter (variable weight, Latin subset), self-hosted from @fontsource-variable/inter:
 * next/font/google would fetch at build time, and builds must work offline.
 * next/font/local only takes relative paths; the package is hoisted to the workspace root.
 */
export const inter = localFont({
  src: "../../../../node_modules/@fontsource-variable/inter/files/inter-latin-wght-normal.woff2",
  weight: "100 900",
  style: "normal",
  display: "swap",
  variable: "--font-inter",
});
