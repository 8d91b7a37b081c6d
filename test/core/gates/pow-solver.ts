import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';

/** Solves a challenge as the ALTCHA widget does and returns the `altcha_solution` payload. */
export async function solvePow(challenge: Challenge): Promise<string> {
  const solution = await solveChallenge({ challenge, deriveKey });
  if (solution === null) throw new Error('no solution found');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}
