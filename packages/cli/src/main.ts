import { main } from "./cli.js";

await main(process.argv);
