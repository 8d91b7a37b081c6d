import { dropRunDatabase } from './postgres.js';
import { removeSqliteFiles } from './sqlite.js';

/** Mocha root hooks: clean up this run's databases once every test has finished. */
export const mochaHooks = {
  async afterAll(): Promise<void> {
    removeSqliteFiles();
    await dropRunDatabase();
  },
};
