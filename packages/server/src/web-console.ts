import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import type { RequestHandler } from "./http-server.js";
import { StartupError } from "./startup-error.js";

/** The directory of the built web console (apps/web). */
export function webConsoleDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve("@switchyard/web/package.json"));
}

/**
 * The console's Next.js app: one per process, shared by every Switchyard started in it, for the
 * life of the process. Next's production server keeps process-wide state (it patches the global
 * fetch and holds its build in module state): an app created after another was closed in the same
 * process answers 500 to every page. A `serve` process starts one Switchyard; the tests start many
 * in one process, one after another, and share the app.
 */
let shared: Promise<RequestHandler> | undefined;

/**
 * Loads the production build of the Next.js console in this process, so one port serves both the
 * console and its API (no CORS, one origin for cookies). Its pages are rendered per request, for
 * the nonce of their Content-Security-Policy (content-security-policy.ts), but hold no data: they
 * call the API from the browser, on the origin they were loaded from, so the app needs no host or
 * port of its own: Next takes a request's from its Host header.
 */
export async function loadWebConsole(): Promise<RequestHandler> {
  const dir = webConsoleDir();
  if (!existsSync(path.join(dir, ".next", "BUILD_ID"))) {
    throw new StartupError(
      `the web console is not built (no ${path.join(dir, ".next")}): run \`npm run build\` first`,
    );
  }
  shared ??= prepare(dir).catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

async function prepare(dir: string): Promise<RequestHandler> {
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  const nextModule = await import("next");
  // Next is CommonJS: at run time the default import is the factory itself, while its typings
  // describe it one level down.
  const createNext = nextModule.default as unknown as typeof nextModule.default.default;
  const app = createNext({ dev: false, dir, quiet: true });
  await app.prepare();
  const handle = app.getRequestHandler();
  return (request, response) => {
    void handle(request, response);
  };
}
