/**
 * The snapshot cache: which snapshot each node is served, and telling the streams when it
 * changes.
 *
 * One compiled config is installed at a time, and each node is served its node group's snapshot
 * of it. While a rollout of a group runs, the group is *held*: it is served two configs at once,
 * the one it ran before (to every node) and the installed one (to the nodes promoted so far).
 *
 * - `setConfig(next, version, { hold: { [group]: { config: previous, version: before } } })`
 *   installs `next` with the group held on `previous`: none of its nodes is told anything new.
 *   A config installed later without `hold` keeps the holds (a publish to another group during
 *   a rollout): the promoted nodes are served the held group's snapshot of that config.
 * - `promote(group, nodeIds)` serves those nodes the installed config and tells only their
 *   watches; `demote(group, nodeIds)` serves them the previous one again (a rollback).
 * - `settle(group, version)` ends the hold: every node of the group is served `version`, the
 *   installed one (the rollout completed) or the held one (rolled back, until a config installed
 *   later replaces it).
 *
 * A watch opened while a group is held (a node connecting, or reconnecting) starts from what
 * its node is assigned: the previous config until it is promoted. A change of snapshot reaches
 * a stream as any publish does, so make-before-break holds within each node whichever way it
 * moves (the session orders CDS/EDS before LDS/RDS; xDS protocol page, "Eventual consistency
 * considerations", https://www.envoyproxy.io/docs/envoy/latest/api-docs/xds_protocol).
 *
 * Which nodes are promoted is decided elsewhere (the rollout core's `versionFor`); the cache only
 * serves what it is told, and holds no timers of its own beyond the fan-out's turns. Without a
 * hold nothing here costs more than before: the fan-out of a publish reads one map size per
 * watch, and the index of watches by node id is kept only while a group is held.
 *
 * Tests: snapshot-cache.spec.ts (the rules, pure), rollout-serving.e2e.spec.ts (over real
 * SotW and Delta streams).
 */
import {
  type CompiledConfig,
  type CompiledGroup,
  type NodeIdentity,
  type ResourceSnapshot,
  selectNodeGroup,
} from "@switchyard/snapshot";

/** What a stream needs from the cache: the node's snapshot now and whenever it changes. */
export interface ConfigWatcher {
  /**
   * Watches the snapshot `node` is served. `onChange` is called with each new snapshot (and the
   * name of the group it is, which a publish may change) after the call returns; `current` is
   * undefined until a config is installed.
   */
  watch(node: NodeIdentity, onChange: SnapshotListener): SnapshotWatch;
}

export type SnapshotListener = (snapshot: ResourceSnapshot, group: string) => void;

export interface SnapshotWatch {
  readonly current: ResourceSnapshot | undefined;
  /** The node group `current` is (undefined with it). */
  readonly group: string | undefined;
  cancel(): void;
}

/** What one node is served now, and the config version it comes from. */
export interface Served {
  readonly snapshot: ResourceSnapshot;
  readonly group: string;
  /** The installed version, or for a node held back (or a group settled back) the held one. */
  readonly version: number;
}

/** A node group kept on the config it ran before while a rollout of the installed one runs. */
export interface GroupHold {
  /** The config the group ran before: its group of the same name is what held nodes get. */
  readonly config: CompiledConfig;
  readonly version: number;
  /** Nodes served the installed config from the start (a rollout resumed after a restart). */
  readonly promoted?: Iterable<string>;
}

export interface SetConfigOptions {
  /**
   * Node groups to hold, by name, each replacing any hold it had. A group must be in both
   * configs. Groups held before and not named here stay held.
   */
  readonly hold?: { readonly [group: string]: GroupHold };
}

interface Hold {
  /** The previous config's snapshot of the group, sharing what it can with what was served. */
  readonly snapshot: ResourceSnapshot;
  readonly version: number;
  readonly promoted: Set<string>;
}

interface WatchEntry {
  readonly node: NodeIdentity;
  readonly onChange: SnapshotListener;
  last: ResourceSnapshot | undefined;
}

export interface SnapshotCacheOptions {
  /**
   * How many watches one turn of the event loop tells of a new config (default 64): the streams
   * told plan and send their responses before the next turn, and I/O (ACKs, API requests, the
   * publish's own answer) runs between turns, so a publish to thousands of streams never holds
   * the process for the whole fan-out.
   */
  readonly watchesPerTurn?: number;
}

/**
 * Holds the compiled config (one immutable snapshot per node group) and tells watching streams
 * when their node's snapshot changes. The cache never copies a snapshot: every stream of a group
 * shares the same immutable object, and with it the encoded resource bytes.
 *
 * A new config is installed at once (`config`, `version`, and what a new watch starts from) and
 * told to the watches over the next turns of the event loop, `watchesPerTurn` at a time, in the
 * order they were opened. A config installed during a fan-out restarts it: each watch is told
 * only the latest snapshot, once. A promotion or demotion is told the same way, to its nodes'
 * watches only, before the rest of a fan-out under way.
 */
export class SnapshotCache implements ConfigWatcher {
  #config: CompiledConfig | undefined;
  #version: number | undefined;
  readonly #watches = new Set<WatchEntry>();
  readonly #watchesPerTurn: number;
  /** The watches still to be told of the installed config, in order; undefined when none. */
  #fanOut: Iterator<WatchEntry> | undefined;
  /** Watches to be told first: those of nodes promoted or demoted since the last turn. */
  readonly #targeted = new Set<WatchEntry>();
  #scheduled = false;
  /** Held node groups, by name. */
  readonly #holds = new Map<string, Hold>();
  /** Groups settled back on their held version, served until the next config: by name. */
  readonly #settledBack = new Map<string, number>();
  /** The open watches by node id, kept only while a group is held (to tell a promotion). */
  #byNode: Map<string, Set<WatchEntry>> | undefined;

  constructor(options: SnapshotCacheOptions = {}) {
    this.#watchesPerTurn = options.watchesPerTurn ?? 64;
  }

  /** The version of the installed config, if any: the latest, whatever a held node is served. */
  get version(): number | undefined {
    return this.#version;
  }

  /** The installed config; a held group's nodes may be served another (`servedTo`). */
  get config(): CompiledConfig | undefined {
    return this.#config;
  }

  /** True while watches are still to be told of the installed config or of a promotion. */
  get fanningOut(): boolean {
    return this.#fanOut !== undefined || this.#targeted.size > 0;
  }

  /** The names of the held groups. */
  get heldGroups(): readonly string[] {
    return [...this.#holds.keys()];
  }

  /**
   * Installs a new config; every watch whose snapshot changed is told over the next turns. Each
   * group's snapshot shares with the one it replaces what did not change
   * (ResourceSnapshot.reusing): a group the publish did not change keeps its snapshot, and its
   * streams are told nothing. With `hold`, the groups named are held on their previous config
   * (see the module's doc); throws, installing nothing, when one is missing from either config.
   */
  setConfig(config: CompiledConfig, version: number, options?: SetConfigOptions): void {
    const previous = this.#config;
    const holds = options?.hold === undefined ? undefined : this.#holdsOf(config, options.hold);
    this.#config =
      previous === undefined
        ? config
        : {
            ...config,
            groups: config.groups.map((group) => {
              const before = previous.groups.find((g) => g.name === group.name);
              return before === undefined
                ? group
                : { ...group, snapshot: group.snapshot.reusing(before.snapshot) };
            }),
          };
    this.#version = version;
    this.#settledBack.clear();
    if (holds !== undefined) {
      for (const [name, hold] of holds) this.#holds.set(name, hold);
      this.#indexWatches();
    }
    this.#fanOut = [...this.#watches][Symbol.iterator]();
    this.#schedule();
  }

  /**
   * Holds groups of the installed config on a previous one now, as `setConfig`'s `hold` does
   * (for a process told of a rollout after it installed its version): the groups' nodes not
   * promoted are told the previous snapshot. Throws, holding nothing, as `setConfig` does.
   */
  hold(given: { readonly [group: string]: GroupHold }): void {
    const config = this.#config;
    if (config === undefined) throw new RangeError("no config is installed: none to hold");
    for (const [name, hold] of this.#holdsOf(config, given)) this.#holds.set(name, hold);
    this.#indexWatches();
    this.#fanOut = [...this.#watches][Symbol.iterator]();
    this.#schedule();
  }

  /** The holds `given` asks for, checked against the configs before anything is installed. */
  #holdsOf(
    config: CompiledConfig,
    given: { readonly [group: string]: GroupHold },
  ): Map<string, Hold> {
    const holds = new Map<string, Hold>();
    for (const [name, hold] of Object.entries(given)) {
      if (!config.groups.some((g) => g.name === name))
        throw new RangeError(`node group "${name}" is not in the config to install: none to hold`);
      const group = hold.config.groups.find((g) => g.name === name);
      if (group === undefined)
        throw new RangeError(
          `node group "${name}" is not in version ${hold.version}, the config it is to be held on`,
        );
      // What the held nodes have now, when it is the same content: they are told nothing.
      const served = this.#holds.get(name)?.snapshot ?? this.#installedGroup(name)?.snapshot;
      holds.set(name, {
        snapshot: served === undefined ? group.snapshot : group.snapshot.reusing(served),
        version: hold.version,
        promoted: new Set(hold.promoted),
      });
    }
    return holds;
  }

  /**
   * Serves `nodeIds` of the held `group` the installed config, telling only their watches.
   * Throws when the group is not held.
   */
  promote(group: string, nodeIds: Iterable<string>): void {
    const hold = this.#held(group, "promote");
    this.#retell(nodeIds, (id) => hold.promoted.add(id));
  }

  /** Serves `nodeIds` of the held `group` its previous config again. Throws when not held. */
  demote(group: string, nodeIds: Iterable<string>): void {
    const hold = this.#held(group, "demote");
    this.#retell(nodeIds, (id) => hold.promoted.delete(id));
  }

  /**
   * Ends the hold of `group`: every node of it is served `version`, the installed one or the one
   * it was held on (which it keeps until a config is installed after). Throws when the group is
   * not held, or `version` is neither.
   */
  settle(group: string, version: number): void {
    const hold = this.#held(group, "settle");
    if (version !== this.#version && version !== hold.version)
      throw new RangeError(
        `node group "${group}" cannot settle on version ${version}: it serves ${hold.version} and ${this.#version}`,
      );
    this.#holds.delete(group);
    const installed = this.#installedGroup(group);
    if (version !== this.#version && installed !== undefined && this.#config !== undefined) {
      const back: CompiledGroup = { ...installed, snapshot: hold.snapshot };
      this.#config = {
        ...this.#config,
        groups: this.#config.groups.map((g) => (g === installed ? back : g)),
      };
      this.#settledBack.set(group, hold.version);
    }
    const watches = [...(this.#byNode?.values() ?? [])].flatMap((set) => [...set]);
    if (this.#holds.size === 0) this.#byNode = undefined;
    for (const entry of watches) this.#targeted.add(entry);
    this.#schedule();
  }

  /** What `node` is served now; undefined until a config is installed. */
  servedTo(node: NodeIdentity): Served | undefined {
    const config = this.#config;
    const version = this.#version;
    if (config === undefined || version === undefined) return undefined;
    const group = selectNodeGroup(config.groups, node);
    const hold = this.#holds.get(group.name);
    if (hold !== undefined && !hold.promoted.has(node.id))
      return { snapshot: hold.snapshot, group: group.name, version: hold.version };
    return {
      snapshot: group.snapshot,
      group: group.name,
      version: this.#settledBack.get(group.name) ?? version,
    };
  }

  #held(group: string, what: string): Hold {
    const hold = this.#holds.get(group);
    if (hold === undefined)
      throw new RangeError(`cannot ${what} nodes of node group "${group}": it is not held`);
    return hold;
  }

  #installedGroup(name: string): CompiledGroup | undefined {
    return this.#config?.groups.find((g) => g.name === name);
  }

  /** Applies `change` to each node id and queues its watches to be told what it is served. */
  #retell(nodeIds: Iterable<string>, change: (id: string) => void): void {
    for (const id of nodeIds) {
      change(id);
      for (const entry of this.#byNode?.get(id) ?? []) this.#targeted.add(entry);
    }
    this.#schedule();
  }

  #indexWatches(): void {
    if (this.#byNode !== undefined) return;
    this.#byNode = new Map();
    for (const entry of this.#watches) this.#indexed(entry);
  }

  #indexed(entry: WatchEntry): void {
    const byNode = this.#byNode;
    if (byNode === undefined) return;
    const same = byNode.get(entry.node.id);
    if (same === undefined) byNode.set(entry.node.id, new Set([entry]));
    else same.add(entry);
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#turn());
  }

  #turn(): void {
    this.#scheduled = false;
    const config = this.#config;
    if (config === undefined) return;
    let told = 0;
    for (const entry of this.#targeted) {
      if (told >= this.#watchesPerTurn) break;
      this.#targeted.delete(entry);
      if (this.#watches.has(entry) && this.#tell(config, entry)) told += 1;
    }
    const fanOut = this.#fanOut;
    while (fanOut !== undefined && told < this.#watchesPerTurn) {
      const next = fanOut.next();
      if (next.done) {
        this.#fanOut = undefined;
        break;
      }
      const entry = next.value;
      if (this.#watches.has(entry) && this.#tell(config, entry)) told += 1;
    }
    if (this.fanningOut) this.#schedule();
  }

  /** Tells `entry` what its node is served, if that changed; true when it did. */
  #tell(config: CompiledConfig, entry: WatchEntry): boolean {
    const group = selectNodeGroup(config.groups, entry.node);
    let snapshot = group.snapshot;
    if (this.#holds.size > 0) {
      const hold = this.#holds.get(group.name);
      if (hold !== undefined && !hold.promoted.has(entry.node.id)) snapshot = hold.snapshot;
    }
    if (snapshot === entry.last) return false;
    entry.last = snapshot;
    entry.onChange(snapshot, group.name);
    return true;
  }

  watch(node: NodeIdentity, onChange: SnapshotListener): SnapshotWatch {
    const served = this.#holds.size === 0 ? undefined : this.servedTo(node);
    const group =
      served === undefined && this.#config ? selectNodeGroup(this.#config.groups, node) : undefined;
    const entry: WatchEntry = { node, onChange, last: served?.snapshot ?? group?.snapshot };
    this.#watches.add(entry);
    this.#indexed(entry);
    return {
      current: entry.last,
      group: served?.group ?? group?.name,
      cancel: () => {
        this.#watches.delete(entry);
        const same = this.#byNode?.get(node.id);
        same?.delete(entry);
        if (same?.size === 0) this.#byNode?.delete(node.id);
      },
    };
  }

  /** Number of open watches (one per connected stream). */
  get watchCount(): number {
    return this.#watches.size;
  }
}
