/**
 * Every setting that holds a secret, named once (docs/architecture.md#security-model). Plugins
 * never see these values: not in `ctx.settings`, not in `validateConfig`, not behind any object
 * the plugin context reaches; they learn only which are set (`configuredSecrets`).
 */
export const SECRET_SETTINGS = ['jwtSecret', 'pepperSecret', 'ipHashSalt', 'adminKeyIntegritySecret', 'adminSessionSecret', 'btcpayApiKey', 'grinNodeApiSecret', 'priceFeedApiKey'] as const;
export type SecretSetting = (typeof SECRET_SETTINGS)[number];

/** The secrets core requires; each must differ from the others. */
export const REQUIRED_SECRETS = ['jwtSecret', 'pepperSecret', 'ipHashSalt', 'adminKeyIntegritySecret', 'adminSessionSecret'] as const satisfies readonly SecretSetting[];
