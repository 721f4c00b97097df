/** `npm run bench`: runs every benchmark, prints a markdown table, writes bench/results/*.json. */
import { mkdirSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { configBench, type Figure } from "./config.bench.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

function table(figures: readonly Figure[]): string {
  const rows = figures.map(
    (f) => `| ${f.name} | ${f.value.toFixed(0)} ${f.unit} | ${f.target ?? ""} |`,
  );
  return ["| measure | result | target |", "|---|---:|---|", ...rows].join("\n");
}

const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
const started = new Date();
const figures = await configBench();
const markdown = `## Config: validate, compile, publish\n\n${started.toISOString().slice(0, 10)}, ${machine}\n\n${table(figures)}\n`;
process.stdout.write(`\n${markdown}\n`);
mkdirSync(path.join(root, "bench", "results"), { recursive: true });
writeFileSync(
  path.join(root, "bench", "results", "config.json"),
  `${JSON.stringify({ date: started.toISOString(), machine, figures }, null, 2)}\n`,
);
writeFileSync(path.join(root, "bench", "results", "config.md"), markdown);
