/**
 * What a rollout asks of serving, as plain data, and how a process carries it out on its
 * SnapshotCache (whose module doc describes held node groups). The commands name versions, not
 * configs, so they cross to the xDS worker processes as they are (xds-workers.ts) and each process
 * finds the configs itself: the one it serves, or a read of the stored version.
 *
 * The rollout core's actions map onto them one for one: `send(toVersion, nodes)` is `promote`,
 * `send(fromVersion, nodes)` is `demote`, `settle(version)` is `settle`; `hold` starts the rollout
 * (and, with the nodes already promoted, resumes one in a process that starts mid-rollout).
 *
 * A `hold` given before `toVersion` is installed waits for it, and `toVersion` is then installed
 * held from its first turn: none of the group's nodes is told it unless promoted. So the driver
 * gives `hold` before it commits the publish of `toVersion`. A hold given later (the process
 * already serves `toVersion`) tells the nodes not promoted the previous version again.
 *
 * Commands are carried out in the order given; promotions given while a hold waits are kept
 * with it.
 */
import type { CompiledConfig } from "@switchyard/snapshot";
import type { GroupHold, SnapshotCache } from "@switchyard/xds";

export type ServingCommand =
  /**
   * Serve `toVersion` with `group` held on `fromVersion`; `promoted` are served `toVersion`
   * already (a rollout resumed).
   */
  | {
      readonly t: "hold";
      readonly group: string;
      readonly fromVersion: number;
      readonly toVersion: number;
      readonly promoted: readonly string[];
    }
  /** Serve these nodes of the held group `toVersion`. */
  | { readonly t: "promote"; readonly group: string; readonly nodeIds: readonly string[] }
  /** Serve these nodes of the held group `fromVersion` again. */
  | { readonly t: "demote"; readonly group: string; readonly nodeIds: readonly string[] }
  /** End the hold: every node of the group is served `version` (one of the two). */
  | { readonly t: "settle"; readonly group: string; readonly version: number };

/** A group's hold as the commands so far make it. */
interface GroupState {
  readonly fromVersion: number;
  readonly toVersion: number;
  readonly promoted: Set<string>;
  /** The config of `fromVersion`, found or being read; undefined after a read failed. */
  from: Promise<CompiledConfig> | undefined;
  /** True once the cache holds the group (`toVersion` or later is installed). */
  applied: boolean;
  /** Settled on `fromVersion` before it applied: settled so as soon as it does. */
  settledBack: boolean;
}

export interface RolloutServingOptions {
  readonly cache: SnapshotCache;
  /** The stored config of `version`; undefined when there is none. */
  readonly readVersion: (version: number) => Promise<CompiledConfig | undefined>;
}

/**
 * Carries out ServingCommands on a cache, and installs published versions through `install`
 * (instead of `cache.setConfig`) so that a version a hold waits for is installed held.
 */
export class RolloutServing {
  readonly #cache: SnapshotCache;
  readonly #readVersion: RolloutServingOptions["readVersion"];
  readonly #groups = new Map<string, GroupState>();
  #queue: Promise<void> = Promise.resolve();

  constructor(options: RolloutServingOptions) {
    this.#cache = options.cache;
    this.#readVersion = options.readVersion;
  }

  /**
   * Carries out `command` after those given before it; rejects when it does not apply (a group
   * not held, a version that is not stored), changing nothing.
   */
  command(command: ServingCommand): Promise<void> {
    const state = command.t === "hold" ? this.#begin(command) : undefined;
    const run = this.#queue.then(() => this.#apply(command, state));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** The commands that bring a process started now to the same serving (one `hold` a group). */
  replay(): ServingCommand[] {
    return [...this.#groups].map(([group, state]) => ({
      t: "hold",
      group,
      fromVersion: state.fromVersion,
      toVersion: state.toVersion,
      promoted: [...state.promoted],
    }));
  }

  /**
   * Installs a published version, held where a waiting hold asks; resolves once installed. A hold
   * whose previous config is still being read delays it: the version is never served unheld.
   */
  async install(config: CompiledConfig, version: number): Promise<void> {
    const waiting = [...this.#groups].filter(
      ([, state]) => !state.applied && state.toVersion <= version,
    );
    if (waiting.length === 0) {
      this.#cache.setConfig(config, version);
      return;
    }
    const holds: { [group: string]: GroupHold } = {};
    for (const [group, state] of waiting)
      holds[group] = { config: await this.#from(state), version: state.fromVersion };
    // Read meanwhile: a newer version may have been installed; never go back.
    if ((this.#cache.version ?? 0) >= version) return;
    for (const [group] of waiting) {
      const state = this.#groups.get(group);
      const hold = holds[group];
      if (state === undefined || hold === undefined) delete holds[group];
      else holds[group] = { ...hold, promoted: state.promoted };
    }
    this.#cache.setConfig(config, version, { hold: holds });
    for (const [group] of waiting) {
      const state = this.#groups.get(group);
      if (state !== undefined) this.#applied(group, state);
    }
  }

  /** The cache holds `group` now; one settled back before that is settled at once. */
  #applied(group: string, state: GroupState): void {
    state.applied = true;
    if (!state.settledBack) return;
    this.#groups.delete(group);
    this.#cache.settle(group, state.fromVersion);
  }

  /** Records a hold at once (so `replay` and `install` see it), its previous config found later. */
  #begin(command: Extract<ServingCommand, { t: "hold" }>): GroupState {
    const cache = this.#cache;
    const state: GroupState = {
      fromVersion: command.fromVersion,
      toVersion: command.toVersion,
      promoted: new Set(command.promoted),
      from:
        cache.version === command.fromVersion && cache.config !== undefined
          ? Promise.resolve(cache.config)
          : undefined,
      applied: false,
      settledBack: false,
    };
    this.#groups.set(command.group, state);
    return state;
  }

  /**
   * The config `state` holds its group on. A read that fails is tried again by the next install
   * (the follower's next check): the version a hold waits for is never installed without it.
   */
  #from(state: GroupState): Promise<CompiledConfig> {
    state.from ??= this.#readVersion(state.fromVersion).then(
      (config) => {
        if (config === undefined)
          throw new RangeError(`version ${state.fromVersion} is not stored: none to hold on`);
        return config;
      },
      (error: unknown) => {
        state.from = undefined;
        throw error;
      },
    );
    return state.from;
  }

  async #apply(command: ServingCommand, begun: GroupState | undefined): Promise<void> {
    const cache = this.#cache;
    if (command.t === "hold") {
      if (begun === undefined || this.#groups.get(command.group) !== begun) return;
      const config = await this.#from(begun);
      if (begun.applied || (cache.version ?? 0) < command.toVersion) return;
      cache.hold({
        [command.group]: { config, version: command.fromVersion, promoted: begun.promoted },
      });
      this.#applied(command.group, begun);
      return;
    }
    const state = this.#groups.get(command.group);
    if (state === undefined)
      throw new RangeError(`node group "${command.group}" is not held: no hold was given for it`);
    switch (command.t) {
      case "promote":
        for (const id of command.nodeIds) state.promoted.add(id);
        if (state.applied) cache.promote(command.group, command.nodeIds);
        return;
      case "demote":
        for (const id of command.nodeIds) state.promoted.delete(id);
        if (state.applied) cache.demote(command.group, command.nodeIds);
        return;
      case "settle": {
        const back = command.version === state.fromVersion;
        if (!back && command.version !== state.toVersion)
          throw new RangeError(
            `node group "${command.group}" cannot settle on version ${command.version}: it rolls out ${state.fromVersion} → ${state.toVersion}`,
          );
        if (!state.applied) {
          // Not installed here yet: on the new version the hold is dropped; on the previous one
          // the version is still installed held, and settled back at once.
          if (back) state.settledBack = true;
          else this.#groups.delete(command.group);
          return;
        }
        this.#groups.delete(command.group);
        // The installed version may be later than `toVersion` (a publish to another group since).
        cache.settle(command.group, back ? state.fromVersion : (cache.version ?? state.toVersion));
        return;
      }
    }
  }
}
