import { readdirSync, readFileSync } from "node:fs";
import { createTestDatabase } from "@switchyard/db/testing";
import { adminToken, writeObjects } from "@switchyard/server/testing";
import { TypeUrl } from "@switchyard/snapshot";
import { largeConfigSpec } from "@switchyard/snapshot/fixtures";
import { configApi, startServe } from "../test/processes.js";
import { CHANGED_ROUTE, CHANGED_ROUTE_CONFIGURATION, changedMatch } from "./fleet-config.js";
import { forkFleet, type RemoteFleet } from "./fleet-process.js";
import { settled } from "./process-usage.js";

function fields(pid: number) { const s = readFileSync(`/proc/${pid}/stat`, "utf8"); return s.slice(s.lastIndexOf(")") + 2).split(" "); }
function tree(pid: number): number[] {
  const kids = new Map<number, number[]>();
  for (const e of readdirSync("/proc")) { if (!/^\d+$/.test(e)) continue; try { const p = Number(fields(Number(e))[1]); kids.set(p, [...(kids.get(p) ?? []), Number(e)]); } catch {} }
  const t = [pid]; for (let i = 0; i < t.length; i++) t.push(...(kids.get(t[i]!) ?? [])); return t;
}
const cpu = (pid: number) => { try { const f = fields(pid); return (Number(f[11]) + Number(f[12])) / 100; } catch { return 0; } };

const NODES = (process.env.NODES ?? "0,1000").split(",").map(Number);
const CHANGES = Number(process.env.CHANGES ?? 6);
const database = await createTestDatabase();
const spec = largeConfigSpec(100, 1000);
await database.prisma.$transaction((tx) => writeObjects(tx, spec), { timeout: 300_000 });
const serve = await startServe(["--no-console"], { DATABASE_URL: database.url, SWITCHYARD_LOG_LEVEL: "error", SWITCHYARD_XDS_WORKERS: process.env.W ?? "2" });
const api = configApi(serve, await adminToken(serve.baseUrl));
await api.publish({ message: "benchmark config" });
const pid = serve.child.pid!;
const procs = tree(pid).filter((p) => { try { return readFileSync(`/proc/${p}/cmdline`, "utf8").includes("node"); } catch { return false; } });
console.log("procs", procs);
const fleets: RemoteFleet[] = [];
const totals: number[] = [];
let connected = 0; let round = 0;
try {
for (const count of NODES) {
  if (count > connected) {
    for (const variant of ["sotw", "delta"] as const) fleets.push(forkFleet({ xdsUrl: `http://127.0.0.1:${serve.xdsPort}`, count: (count - connected) / 2, variant, prefix: `${variant}-${count}` }));
    await Promise.all(fleets.map((f) => f.holding({ [TypeUrl.Cluster]: 100, [TypeUrl.RouteConfiguration]: 10 }, 300_000)));
    connected = count;
  }
  await settled(pid);
  if (process.env.HEAP) { for (const w of procs.slice(1)) process.kill(w, 'SIGUSR2'); await new Promise((r) => setTimeout(r, 1000)); }
  for (let i = 0; i < CHANGES; i++) {
    round++;
    const rc = await api.getRouteConfiguration({ name: CHANGED_ROUTE_CONFIGURATION });
    for (const vh of rc.virtualHosts) for (const r of vh.routes) if (r.name === CHANGED_ROUTE) r.matchValue = changedMatch(round);
    await api.updateRouteConfiguration(rc);
    await settled(pid);
    await Promise.all(fleets.map((f) => f.mark()));
    const before = procs.map(cpu);
    const t0 = performance.now();
    await api.publish({ message: `c ${round}` });
    const pub = performance.now() - t0;
    if (fleets.length) await Promise.all(fleets.map((f) => f.acked(TypeUrl.RouteConfiguration, 120_000)));
    await settled(pid);
    const d = procs.map((p, j) => Math.round((cpu(p) - before[j]!) * 1000));

    totals.push(d.reduce((a, b) => a + b, 0));
    if (process.env.QUIET !== '1') console.log(`nodes ${count} change ${i}: publish ${pub.toFixed(0)} ms, cpu ms per proc ${d.join(" / ")} total ${d.reduce((a, b) => a + b, 0)}`);
  }
}
if (process.env.HEAP) { for (const w of procs.slice(1)) process.kill(w, 'SIGUSR2'); await new Promise((r) => setTimeout(r, 3000)); }
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const mean = (a: number[]) => Math.round(a.reduce((x, y) => x + y, 0) / a.length);
console.log(`SUMMARY ${process.env.LABEL}: rounds1-3 ${med(totals.slice(1, 4))} later ${med(totals.slice(4))} mean4+ ${mean(totals.slice(4))} first ${totals[0]}`);
} finally { await Promise.all(fleets.map((f) => f.close())); await serve.stop(); (await import("node:fs")).writeFileSync("/tmp/tmpbench/serve.out", serve.output()); await database.drop(); }
