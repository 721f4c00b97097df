export { type Switchyard, type SwitchyardOptions, startSwitchyard } from "./app.js";
export { type Env, readEnv } from "./env.js";
export { serve } from "./serve.js";
export { StartupError } from "./startup-error.js";
export { loadConfigSpec } from "./store/config-store.js";
export { WORKER_SEMI_SPACE_MB } from "./xds-workers.js";
