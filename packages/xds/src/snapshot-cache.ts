import {
  type CompiledConfig,
  type NodeIdentity,
  type ResourceSnapshot,
  selectNodeGroup,
} from "@switchyard/snapshot";

/** What a stream needs from the cache: the node's snapshot now and whenever it changes. */
export interface ConfigWatcher {
  /**
   * Watches the snapshot of `node`'s group. `onChange` is called synchronously with each new
   * snapshot after the call returns; `current` is undefined until a config is installed.
   */
  watch(node: NodeIdentity, onChange: (snapshot: ResourceSnapshot) => void): SnapshotWatch;
}

export interface SnapshotWatch {
  readonly current: ResourceSnapshot | undefined;
  readonly group: string | undefined;
  cancel(): void;
}

interface WatchEntry {
  readonly node: NodeIdentity;
  readonly onChange: (snapshot: ResourceSnapshot) => void;
  last: ResourceSnapshot | undefined;
}

/**
 * Holds the compiled config (one immutable snapshot per node group) and tells watching streams
 * when their node's snapshot changes. The cache never copies a snapshot: every stream of a group
 * shares the same immutable object, and with it the encoded resource bytes.
 */
export class SnapshotCache implements ConfigWatcher {
  #config: CompiledConfig | undefined;
  #version: number | undefined;
  readonly #watches = new Set<WatchEntry>();

  /** The version of the installed config, if any. */
  get version(): number | undefined {
    return this.#version;
  }

  get config(): CompiledConfig | undefined {
    return this.#config;
  }

  /** Installs a new config and notifies every watch whose snapshot changed. */
  setConfig(config: CompiledConfig, version: number): void {
    this.#config = config;
    this.#version = version;
    for (const entry of this.#watches) {
      const next = selectNodeGroup(config.groups, entry.node).snapshot;
      if (next !== entry.last) {
        entry.last = next;
        entry.onChange(next);
      }
    }
  }

  watch(node: NodeIdentity, onChange: (snapshot: ResourceSnapshot) => void): SnapshotWatch {
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
