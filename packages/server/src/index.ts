export { type Switchyard, type SwitchyardOptions, startSwitchyard } from "./app.js";
export { createCli, main } from "./cli.js";
export { type Env, readEnv } from "./env.js";
export { StartupError } from "./startup-error.js";
export { loadConfigSpec } from "./store/config-store.js";
