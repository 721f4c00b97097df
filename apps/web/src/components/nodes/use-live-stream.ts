"use client";

import { Code, ConnectError } from "@connectrpc/connect";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { isRetryable, type LiveStreamState, reconnectDelayMs } from "@/lib/live-stream";

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/**
 * Keeps a server stream open while the component is mounted: `open` is called with an
 * AbortSignal, and each message goes to `onMessage`. When the stream fails or the server closes it
 * (a restart), it is opened again after a backoff (live-stream.ts); a refusal the server would
 * repeat (NotFound, ...) ends it. The stream is cancelled on unmount or when `open` changes, so
 * memoize `open`. `reconnectNow` skips the wait.
 *
 * Every (re)opened stream starts with the full state (WatchNodes' reset, WatchNode's detail), so
 * `onMessage` never has to reconcile across a reconnect.
 */
export function useLiveStream<T>(
  open: (signal: AbortSignal) => AsyncIterable<T>,
  onMessage: (message: T) => void,
): { state: LiveStreamState; reconnectNow: () => void } {
  const [state, setState] = useState<LiveStreamState>({ t: "connecting" });
  const [nonce, setNonce] = useState(0);
  const queryClient = useQueryClient();
  const handler = useRef(onMessage);
  useEffect(() => {
    handler.current = onMessage;
  });

  useEffect(() => {
    // `nonce` only re-runs the effect.
    void nonce;
    const abort = new AbortController();
    const { signal } = abort;
    (async () => {
      let attempt = 0;
      while (!signal.aborted) {
        let error: ConnectError;
        try {
          let first = true;
          for await (const message of open(signal)) {
            if (first) {
              first = false;
              attempt = 0;
              setState({ t: "live" });
              // The top bar's API indicator (shell/api-status.tsx) reads the query cache: a page
              // fed only by streams would otherwise show "Connecting" forever.
              queryClient.setQueryData(["switchyard", "live-stream"], Date.now());
            }
            handler.current(message);
          }
          error = new ConnectError("the server closed the live feed", Code.Unavailable);
        } catch (e) {
          if (signal.aborted) return;
          error = ConnectError.from(e);
          if (!isRetryable(error)) {
            setState({ t: "ended", error });
            return;
          }
        }
        if (signal.aborted) return;
        attempt += 1;
        const delay = reconnectDelayMs(attempt);
        setState({ t: "reconnecting", attempt, error, retryAt: Date.now() + delay });
        await sleep(delay, signal);
      }
    })();
    return () => abort.abort();
  }, [open, nonce, queryClient]);

  const reconnectNow = useCallback(() => {
    setState({ t: "connecting" });
    setNonce((n) => n + 1);
  }, []);
  return { state, reconnectNow };
}
