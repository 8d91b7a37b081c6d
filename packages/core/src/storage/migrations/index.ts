import type { Migration } from '../migrator.js';
import { coreSchema } from './001_core_schema.js';

/** Core's migrations, in order. Forward-only and additive: append, never edit or remove. */
export const coreMigrations: readonly Migration[] = [coreSchema];
