import type { Logger } from "pino";

/**
 * What a start has started, stopped in reverse order. Each start step adds how to stop what it
 * started as soon as it has started it, so a failure later in the start stops exactly that.
 */
export class Teardown {
  readonly #logger: Logger;
  readonly #steps: Array<() => unknown> = [];

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  add(step: () => unknown): void {
    this.#steps.push(step);
  }

  /** Runs every step added, last first; a step that fails is logged and the others still run. */
  async run(): Promise<void> {
    for (const step of this.#steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        this.#logger.error({ err: error }, "error while stopping");
      }
    }
  }
}
