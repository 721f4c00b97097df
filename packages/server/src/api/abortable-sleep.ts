/**
 * Waits `ms`, or less if `signal` aborts first; never rejects. The abort listener goes when the
 * wait ends either way: a watch stream sleeps on its request's signal for as long as it lives, and
 * a listener left behind per sleep would grow with the stream (Node warns past 10).
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const wake = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal.addEventListener("abort", wake, { once: true });
  });
}
