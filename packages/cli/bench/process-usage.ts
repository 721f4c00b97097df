/**
 * CPU time and memory of another process on this machine, with its child processes (a server's
 * xDS workers), read from Linux's /proc: what the fleet benchmark charges to the server it
 * measures (and to the replay floor).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's times (almost always 100). */
const TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces), from state on. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined; // gone meanwhile
  }
}

/** `pid` and every process descended from it that is alive now. */
function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    // ppid is field 4 (proc(5)): the second after the command name.
    const parent = Number(statFields(Number(entry))?.[1]);
    if (!Number.isInteger(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i] ?? 0) ?? []));
  return tree;
}

/**
 * User + system CPU seconds `pid` and its live descendants have used since they started: utime
 * and stime are fields 14 and 15 (proc(5)).
 */
export function cpuSeconds(pid: number): number {
  let ticks = 0;
  for (const member of processTree(pid)) {
    const fields = statFields(member);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / TICKS;
}

function statusKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  let total = 0;
  for (const member of processTree(pid)) {
    let status: string;
    try {
      status = readFileSync(`/proc/${member}/status`, "utf8");
    } catch {
      continue;
    }
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1];
    if (kb === undefined) throw new Error(`/proc/${member}/status has no ${field}`);
    total += Number(kb) * 1024;
  }
  return total;
}

/** Bytes resident now, `pid` and its descendants summed. */
export const residentBytes = (pid: number): number => statusKb(pid, "VmRSS");

/**
 * The largest resident set of each of `pid` and its descendants since it started, summed (no
 * sampling can miss a peak; the sum bounds from above what they held at once).
 */
export const peakResidentBytes = (pid: number): number => statusKb(pid, "VmHWM");

/**
 * CPU seconds this machine's processes have kept its CPUs busy (all CPUs) since it booted, from
 * /proc/stat's first line: user, nice, system, irq and softirq time, not the hypervisor's steal.
 */
function machineBusySeconds(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0] ?? "";
  // cpu user nice system idle iowait irq softirq steal guest guest_nice (proc(5)).
  const [, user, nice, system, , , irq, softirq] = line.trim().split(/\s+/).map(Number);
  return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0)) / TICKS;
}

/**
 * Waits until what `busySeconds` counts is idle: under `busyShare` of one CPU over two windows of
 * `windowMs` in a row (so that a measure starts from rest, not in the tail of the last one's
 * work). Gives up quietly after `timeoutMs`: what never rests is then measured as it is.
 */
async function settledBy(
  busySeconds: () => number,
  { windowMs = 250, busyShare = 0.05, timeoutMs = 30_000 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  let last = busySeconds();
  while (quiet < 2 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = busySeconds();
    quiet = (now - last) * 1000 < windowMs * busyShare ? quiet + 1 : 0;
    last = now;
  }
}

/** Waits until `pid` is idle (see settledBy). */
export const settled = (pid: number, options?: Parameters<typeof settledBy>[1]): Promise<void> =>
  settledBy(() => cpuSeconds(pid), options);

/** Waits until the whole machine is idle (see settledBy): every process, every CPU. */
export const machineSettled = (options?: Parameters<typeof settledBy>[1]): Promise<void> =>
  settledBy(machineBusySeconds, options);
