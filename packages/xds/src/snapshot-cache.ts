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
   * snapshot (and the name of the group it is, which a publish may change) after the call
   * returns; `current` is undefined until a config is installed.
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
      const group = selectNodeGroup(config.groups, entry.node);
      if (group.snapshot !== entry.last) {
        entry.last = group.snapshot;
        entry.onChange(group.snapshot, group.name);
      }
    }
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
