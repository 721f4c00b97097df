/**
 * File delivery (README, "File delivery"): on every version served, each node group's
 * configuration is written as DiscoveryResponse files for Envoys that read it through filesystem
 * config sources. Each file is written beside its target and renamed into place, so a reader (and
 * Envoy, which watches for moves) only ever sees a whole file, old or new; files are applied in
 * make-before-break order (assignments, clusters, route configurations, listeners), and the
 * assignment and route configuration files nothing refers to any more are deleted last.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm } from "node:fs/promises";
import * as path from "node:path";
import {
  type CompiledConfig,
  type DeliveryFile,
  deliveryFiles,
  type FileFormat,
  fileNameOf,
} from "@switchyard/snapshot";

export interface FileDeliveryOptions {
  /** The folder written to; one sub-folder per node group. */
  readonly dir: string;
  readonly format: FileFormat;
  /**
   * The same folder as Envoy sees it, when it is mounted elsewhere (the paths inside the files
   * name it). Default: `dir`, made absolute.
   */
  readonly envoyDir?: string;
}

/** Writes `content` to `file` so that readers see the old file or the new one, never part. */
export async function writeAtomically(file: string, content: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`,
  );
  const handle = await open(temporary, "w", 0o644);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** A file (or a group's folder) a version could not write, and why. */
export interface FailedFile {
  readonly file: string;
  readonly error: unknown;
}

export class FileDelivery {
  readonly #options: FileDeliveryOptions;
  /** The latest version asked for while a write runs: only the newest is written next. */
  #next: { config: CompiledConfig; version: number } | undefined;
  #running: Promise<void> | undefined;
  readonly #onError: (failed: FailedFile, version: number) => void;
  readonly #onWritten: (version: number, files: number) => void;

  constructor(
    options: FileDeliveryOptions,
    callbacks: {
      /** Once per file that failed: the others are written all the same. */
      readonly onError: (failed: FailedFile, version: number) => void;
      readonly onWritten?: (version: number, files: number) => void;
    },
  ) {
    this.#options = options;
    this.#onError = callbacks.onError;
    this.#onWritten = callbacks.onWritten ?? (() => undefined);
  }

  /** Writes `config` as `version` (after any write in progress; a newer one supersedes it). */
  deliver(config: CompiledConfig, version: number): Promise<void> {
    this.#next = { config, version };
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** Resolves once every version asked for is written (or failed). */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  async #drain(): Promise<void> {
    for (let next = this.#next; next !== undefined; next = this.#next) {
      this.#next = undefined;
      const { version } = next;
      const written = await this.#write(next.config, version, (failed) =>
        this.#onError(failed, version),
      );
      this.#onWritten(version, written);
    }
  }

  /**
   * Writes every group's files; one that fails (a full disk, a folder where a file belongs) is
   * reported and the rest are written all the same, so one bad file never holds back the fleet's
   * other files, in this version or a later one. Returns how many were written.
   */
  async #write(
    config: CompiledConfig,
    version: number,
    fail: (failed: FailedFile) => void,
  ): Promise<number> {
    const { dir, format } = this.#options;
    const envoyDir = this.#options.envoyDir ?? path.resolve(dir);
    const attempt = async (file: string, step: () => Promise<void>): Promise<boolean> => {
      try {
        await step();
        return true;
      } catch (error) {
        fail({ file, error });
        return false;
      }
    };
    let written = 0;
    for (const group of config.groups) {
      const folder = path.join(dir, fileNameOf(group.name));
      let files: DeliveryFile[] = [];
      const rendered = await attempt(folder, async () => {
        files = deliveryFiles(group.snapshot, {
          root: `${envoyDir.replace(/\/+$/, "")}/${fileNameOf(group.name)}`,
          version: String(version),
          format,
        });
      });
      if (!rendered) continue;
      for (const file of files) {
        const target = path.join(folder, file.path);
        if (await attempt(target, () => writeAtomically(target, file.content))) written += 1;
      }
      // Last: the assignments and route configurations no cluster or listener loads any more.
      const current = new Set(files.map((file) => file.path));
      for (const sub of ["eds", "rds", "rtds"]) {
        const names = await readdir(path.join(folder, sub)).catch(() => [] as string[]);
        for (const name of names) {
          const relative = `${sub}/${name}`;
          if (name.endsWith(`.${format}`) && !name.startsWith(".") && !current.has(relative)) {
            const stale = path.join(folder, relative);
            await attempt(stale, () => rm(stale, { force: true, recursive: true }));
          }
        }
      }
    }
    return written;
  }
}
