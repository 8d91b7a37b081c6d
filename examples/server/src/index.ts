export { startServer, type RunningServer, type StartServerOptions } from './server.js';
export { loadServerConfig, pluginsFromEnv, httpTimeoutsFromEnv, type ServerConfig, type HttpTimeouts } from './config.js';
export { settingsFromEnv, SETTING_ENV_NAMES, type Env } from './env.js';
export { loadDevSecrets, DEV_SECRETS_FILE } from './secrets.js';
export { bootBackend } from './boot.js';
