import type { Migration } from '../migrator.js';
import { coreSchema } from './001_core_schema.js';
import { identityDirectorySchema } from './002_identity_directory.js';
import { registrationGatesSchema } from './003_registration_gates.js';
import { priceCacheSchema } from './004_price_cache.js';
import { operatorAdminSchema } from './005_operator_admin.js';
import { keyProofsSchema } from './006_key_proofs.js';
import { rateLimitWindowsSchema } from './007_rate_limit_windows.js';
import { usersPremiumUntilIndex } from './008_users_premium_until.js';
import { operatorConsoleSchema } from './009_operator_console.js';
import { auditErasureMarksSchema } from './010_audit_erasure_marks.js';
import { leaseDueSchema } from './011_lease_due.js';

/** Core's migrations, in order. Forward-only and additive: append, never edit or remove. */
export const coreMigrations: readonly Migration[] = [coreSchema, identityDirectorySchema, registrationGatesSchema, priceCacheSchema, operatorAdminSchema, keyProofsSchema, rateLimitWindowsSchema, usersPremiumUntilIndex, operatorConsoleSchema, auditErasureMarksSchema, leaseDueSchema];
