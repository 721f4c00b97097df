import { main } from "./cli.js";

// A reader that stops early (`switchyard nodes | head`) closes the pipe: that is the end of the
// output, not an error, so the command ends quietly instead of with an EPIPE stack trace.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });

await main(process.argv);
