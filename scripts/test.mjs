#!/usr/bin/env node
// `npm test`: the build, then three lanes at once: the server's tests and the CLI's (their
// end-to-end files take most of the run, and they mostly wait on processes, sockets and the
// browser), beside the lint and format check, the import cycle check (madge), every package's
// type-check and the other packages' tests, one at a time. Each lane prints how long it took; the
// run ends with one line totalling every package's results, "tests: N passed, N failed, N
// skipped".
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

const RESULTS = ".test-results.json";
/** The packages whose tests run in a lane of their own, with their test workers. */
const HEAVY = [
  ["@switchyard/server", 2],
  ["@switchyard/cli", 1],
];
const root = new URL("..", import.meta.url).pathname;
const packageDirs = ["apps", "packages"].flatMap((parent) =>
  readdirSync(join(root, parent), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(root, parent, entry.name)),
);

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

for (const dir of packageDirs) rmSync(join(dir, RESULTS), { force: true });

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
// outputs under the other's feet. The lint, format and cycle checks open the third lane rather
// than hold the others back (all run; any failure fails the run).
const lanes = built
  ? await Promise.all([
      // The CLI's tests on one worker, the server's on two (their configs say two, for a package
      // run alone): with the third lane, more processes than that on two cores only made every
      // file slower (faults-load 120 s alone, 330 s with two CLI workers).
      ...HEAVY.map(([name, workers]) =>
        timed(
          name,
          lane(`${name}:test`, "npm", [
            "run",
            "--silent",
            "test",
            "-w",
            name,
            "--",
            `--maxWorkers=${workers}`,
          ]),
        ),
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
              ...HEAVY.map(([name]) => `--filter=!${name}`),
            ],
          ],
        ]),
      ),
    ])
  : [false];

let passed = 0;
let failed = 0;
let skipped = 0;
for (const dir of packageDirs) {
  const file = join(dir, RESULTS);
  if (!existsSync(file)) continue;
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}
process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exit(lanes.every(Boolean) && failed === 0 && passed > 0 ? 0 : 1);
