import { main } from "./cli.js";

/**
 * A reader that stops early (`switchyard nodes | head`) closes the pipe: that is the end of the
 * output, not an error, in every command, so the command ends quietly instead of with an EPIPE
 * stack trace: with the status it chose already (diff's 1), else 0. `serve`, which stops on
 * SIGTERM, stops as for it (its database shut down cleanly); its log is pino's, which stops
 * writing on EPIPE by itself.
 */
function endOfOutput(): void {
  if (process.listenerCount("SIGTERM") > 0) process.emit("SIGTERM", "SIGTERM");
  else process.exit(process.exitCode ?? 0);
}

let ended = false;
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    if (ended) return;
    ended = true;
    endOfOutput();
  });

await main(process.argv);
