#!/usr/bin/env node
// The `switchyard` command. Runs the compiled CLI; on a fresh clone (nothing built yet) it builds
// the workspace once first, so `npx switchyard serve` works right after `npm install`.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const entry = join(packageDir, "dist", "main.js");
if (!existsSync(entry)) {
  process.stderr.write("switchyard: first run, building the workspace (npm run build)...\n");
  const root = join(packageDir, "..", "..");
  const build = spawnSync("npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" });
  if (build.status !== 0) {
    process.stderr.write(
      "switchyard: the build failed; fix the error above and run `npm run build`\n",
    );
    process.exit(1);
  }
}
await import(entry);
