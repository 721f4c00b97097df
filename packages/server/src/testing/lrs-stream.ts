import type { MessageInitShape } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  LoadReportingService,
  type LoadStatsRequestSchema,
  type LoadStatsResponse,
} from "@switchyard/proto/envoy/service/load_stats/v3/lrs_pb";

export type LoadStatsInit = MessageInitShape<typeof LoadStatsRequestSchema>;

/**
 * A raw LRS stream, as Envoy holds one: requests pushed as the test goes; every answer collected
 * in `answers` as it arrives, and `ended` how the stream ended.
 */
export function openLrs(xdsPort: number, first?: LoadStatsInit) {
  const client = createClient(
    LoadReportingService,
    createGrpcTransport({ baseUrl: `http://127.0.0.1:${xdsPort}` }),
  );
  const pending: LoadStatsInit[] = first === undefined ? [] : [first];
  let wake: (() => void) | undefined;
  let closed = false;
  async function* requests() {
    for (;;) {
      const next = pending.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (closed) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  }
  const answers: LoadStatsResponse[] = [];
  const ended = (async (): Promise<ConnectError | undefined> => {
    try {
      for await (const answer of client.streamLoadStats(requests())) answers.push(answer);
      return undefined;
    } catch (error) {
      return ConnectError.from(error);
    }
  })();
  return {
    answers,
    ended,
    send(request: LoadStatsInit) {
      pending.push(request);
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
  };
}
