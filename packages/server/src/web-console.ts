import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import type { RequestHandler } from "./http-server.js";
import { StartupError } from "./startup-error.js";

export interface WebConsole {
  readonly handler: RequestHandler;
  close(): Promise<void>;
}

/** The directory of the built web console (apps/web). */
export function webConsoleDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve("@switchyard/web/package.json"));
}

/**
 * Loads the production build of the Next.js console in this process, so one port serves both the
 * console and its API (no CORS, one origin for cookies later).
 */
export async function loadWebConsole(options: {
  readonly hostname: string;
  readonly port: number;
}): Promise<WebConsole> {
  const dir = webConsoleDir();
  if (!existsSync(path.join(dir, ".next", "BUILD_ID"))) {
    throw new StartupError(
      `the web console is not built (no ${path.join(dir, ".next")}): run \`npm run build\` first`,
    );
  }
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  const nextModule = await import("next");
  // Next is CommonJS: at run time the default import is the factory itself, while its typings
  // describe it one level down.
  const createNext = nextModule.default as unknown as typeof nextModule.default.default;
  const app = createNext({
    dev: false,
    dir,
    hostname: options.hostname,
    port: options.port,
    quiet: true,
  });
  await app.prepare();
  const handle = app.getRequestHandler();
  return {
    handler: (request, response) => {
      void handle(request, response);
    },
    close: async () => {
      await app.close();
    },
  };
}
