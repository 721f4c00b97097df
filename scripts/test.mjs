#!/usr/bin/env node
// `npm test`: build, lint and format check, no import cycles (madge), type-check, then every package's tests (one package at
// a time: the machine has 2 cores and the end-to-end tests run real servers). Ends with one line
// totalling every package's results, "tests: N passed, N failed, N skipped".
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const RESULTS = ".test-results.json";
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

for (const dir of packageDirs) rmSync(join(dir, RESULTS), { force: true });

const ok =
  step("npx", ["turbo", "run", "build", "--output-logs=errors-only"]) &&
  step("npx", ["biome", "ci", "."]) &&
  step("npm", ["run", "--silent", "cycles"]) &&
  step("npx", ["turbo", "run", "typecheck", "test", "--concurrency=1", "--continue"]);

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
process.exit(ok && failed === 0 && passed > 0 ? 0 : 1);
