import {
  type CompiledConfig,
  type NodeIdentity,
  type ResourceSnapshot,
  selectNodeGroup,
} from "@switchyard/snapshot";

/** What a stream needs from the cache: the node's snapshot now and whenever it changes. */
export interface ConfigWatcher {
  /**
   * Watches the snapshot of `node`'s group. `onChange` is called with each new snapshot (and the
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
 * only the latest snapshot, once.
 */
export class SnapshotCache implements ConfigWatcher {
  #config: CompiledConfig | undefined;
  #version: number | undefined;
  readonly #watches = new Set<WatchEntry>();
  readonly #watchesPerTurn: number;
  /** The watches still to be told of the installed config, in order; undefined when none. */
  #fanOut: Iterator<WatchEntry> | undefined;

  constructor(options: SnapshotCacheOptions = {}) {
    this.#watchesPerTurn = options.watchesPerTurn ?? 64;
  }

  /** The version of the installed config, if any. */
  get version(): number | undefined {
    return this.#version;
  }

  get config(): CompiledConfig | undefined {
    return this.#config;
  }

  /** True while watches are still to be told of the installed config. */
  get fanningOut(): boolean {
    return this.#fanOut !== undefined;
  }

  /**
   * Installs a new config; every watch whose snapshot changed is told over the next turns. Each
   * group's snapshot shares with the one it replaces what did not change
   * (ResourceSnapshot.reusing): a group the publish did not change keeps its snapshot, and its
   * streams are told nothing.
   */
  setConfig(config: CompiledConfig, version: number): void {
    const previous = this.#config;
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
    const running = this.#fanOut !== undefined;
    this.#fanOut = [...this.#watches][Symbol.iterator]();
    if (!running) setImmediate(() => this.#turn());
  }

  #turn(): void {
    const fanOut = this.#fanOut;
    const config = this.#config;
    if (fanOut === undefined || config === undefined) return;
    for (let told = 0; told < this.#watchesPerTurn; ) {
      const next = fanOut.next();
      if (next.done) {
        this.#fanOut = undefined;
        return;
      }
      const entry = next.value;
      if (!this.#watches.has(entry)) continue;
      const group = selectNodeGroup(config.groups, entry.node);
      if (group.snapshot === entry.last) continue;
      entry.last = group.snapshot;
      entry.onChange(group.snapshot, group.name);
      told += 1;
    }
    setImmediate(() => this.#turn());
  }

  watch(node: NodeIdentity, onChange: SnapshotListener): SnapshotWatch {
    const group = this.#config ? selectNodeGroup(this.#config.groups, node) : undefined;
    const entry: WatchEntry = { node, onChange, last: group?.snapshot };
    this.#watches.add(entry);
    return {
      current: entry.last,
      group: group?.name,
      cancel: () => {
        this.#watches.delete(entry);
      },
    };
  }

  /** Number of open watches (one per connected stream). */
  get watchCount(): number {
    return this.#watches.size;
  }
}
