#!/usr/bin/env node
// `npm test`: the build, then two lanes at once: the server's and the CLI's tests as one vitest
// run (vitest.e2e.config.ts; their end-to-end files take most of the time, mostly waiting on
// processes, sockets and the browser), beside the lint and format check, the import cycle check
// (madge), every package's type-check and the other packages' tests, one at a time. Each lane
// prints how long it took; the run ends with one line totalling every run's results, "tests: N
// passed, N failed, N skipped".
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

const RESULTS = ".test-results.json";
/**
 * The packages whose tests run as one vitest run of their own (vitest.e2e.config.ts: their
 * end-to-end files, two at a time), beside everything else.
 */
const HEAVY = ["@switchyard/server", "@switchyard/cli"];
const root = new URL("..", import.meta.url).pathname;
/** Where each run writes its results: every package's folder, and the root (the e2e run's). */
const resultDirs = [
  root,
  ...["apps", "packages"].flatMap((parent) =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(root, parent, entry.name)),
  ),
];

function step(command, args) {
  const { status } = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  return status === 0;
}

/** Runs a command beside the others, its output lines prefixed as turbo prefixes a task's. */
function lane(prefix, command, args) {
  const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ])
    createInterface({ input: from }).on("line", (line) => to.write(`${prefix}: ${line}\n`));
  return new Promise((resolve) => child.on("close", (status) => resolve(status === 0)));
}

/** Commands run one after another; all run even when one fails. Resolves true if all passed. */
async function inOrder(commands) {
  let ok = true;
  for (const [command, args] of commands) {
    const status = await new Promise((resolve) =>
      spawn(command, args, { cwd: root, stdio: "inherit" }).on("close", resolve),
    );
    ok &&= status === 0;
  }
  return ok;
}

for (const dir of resultDirs) rmSync(join(dir, RESULTS), { force: true });

const built = step("npx", ["turbo", "run", "build", "--output-logs=errors-only"]);

/** Resolves as `run` does, once it has printed how long it took under `name`. */
async function timed(name, run) {
  const start = performance.now();
  const ok = await run;
  const seconds = ((performance.now() - start) / 1000).toFixed(0);
  process.stdout.write(`lane ${name}: ${ok ? "passed" : "FAILED"} in ${seconds} s\n`);
  return ok;
}

// Everything is built: the lanes run their tasks only (`--only`), so none restores build
// outputs under the other's feet. The lint, format and cycle checks open the second lane rather
// than hold the others back (all run; any failure fails the run).
const lanes = built
  ? await Promise.all([
      timed(
        "server and CLI tests",
        lane("server+cli:test", "npx", [
          "vitest",
          "run",
          "--config",
          "vitest.e2e.config.ts",
          "--reporter=default",
          "--reporter=json",
          `--outputFile.json=${RESULTS}`,
        ]),
      ),
      timed(
        "checks, type-checks and the other packages",
        inOrder([
          ["npx", ["biome", "ci", "."]],
          ["npm", ["run", "--silent", "cycles"]],
          ["npx", ["turbo", "run", "typecheck", "--only", "--concurrency=1", "--continue"]],
          [
            "npx",
            [
              "turbo",
              "run",
              "test",
              "--only",
              "--concurrency=1",
              "--continue",
              ...HEAVY.map((name) => `--filter=!${name}`),
            ],
          ],
        ]),
      ),
    ])
  : [false];

let passed = 0;
let failed = 0;
let skipped = 0;
for (const dir of resultDirs) {
  const file = join(dir, RESULTS);
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}
process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(lanes.every(Boolean) && failed === 0 && passed > 0 ? 0 : 1);
