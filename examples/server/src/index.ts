export { startServer, corsMiddleware, SERVER_VERSION, type RunningServer, type StartServerOptions } from './server.js';
export { loadServerConfig, pluginsFromEnv, httpTimeoutsFromEnv, corsFromEnv, type ServerConfig, type HttpTimeouts, type CorsSettings } from './config.js';
export { settingsFromEnv, readSecretFiles, SETTING_ENV_NAMES, FILE_ENV_NAMES, type Env, type SecretFiles } from './env.js';
export { loadDevSecrets, DEV_SECRETS_FILE } from './secrets.js';
export { bootBackend } from './boot.js';
export { keepWorkerHeapBounds } from './heap-flags.js';
