import { createChallenge, randomInt, verifySolution, type Challenge, type Payload } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import type { Clock } from '../clock/index.js';
import type { RegistrationAttempt, RegistrationGate, SpentProofStore } from '../identity/index.js';
import { gateErrors } from './errors.js';

/** Iterated SHA-256 with one round per attempt: the difficulty lives in the counter range. */
const ALGORITHM = 'SHA-256';
const COST = 1;

export interface PowOptions {
  /** HMAC key that signs challenges; derived from the server's secrets, never sent. */
  hmacKey: string;
  difficulty: number;
  ttlSec: number;
  clock: Clock;
  spentProofs: SpentProofStore;
}

/**
 * Proof of work with ALTCHA (altcha-lib v2, deterministic mode): a stateless HMAC-signed
 * challenge whose expiry is a signed `data.expires` (checked against the injected clock, not
 * the library's Date.now()). A solution is accepted once: its challenge nonce is spent in the
 * registering transaction and remembered until the challenge expires.
 */
export class ProofOfWork implements RegistrationGate {
  readonly name = 'proof-of-work';

  constructor(private readonly options: PowOptions) {}

  async challenge(): Promise<Challenge> {
    const expires = Math.floor(this.options.clock.now().getTime() / 1000) + this.options.ttlSec;
    return createChallenge({
      algorithm: ALGORITHM,
      cost: COST,
      deriveKey,
      counter: randomInt(this.options.difficulty),
      data: { expires },
      hmacSignatureSecret: this.options.hmacKey,
      hmacKeySignatureSecret: this.options.hmacKey,
    });
  }

  /** The verified payload's challenge nonce and expiry; throws for anything else. */
  async check(solution: string | undefined): Promise<{ nonce: string; expires: number }> {
    if (solution === undefined) throw gateErrors.create.pow_required();
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(solution, 'base64').toString('utf8')) as Payload;
    } catch {
      throw gateErrors.create.pow_invalid();
    }
    if (typeof payload !== 'object' || payload === null || !('challenge' in payload) || !('solution' in payload)) throw gateErrors.create.pow_invalid();
    const expires = Number(payload.challenge?.parameters?.data?.expires);
    if (!Number.isSafeInteger(expires) || expires * 1000 <= this.options.clock.now().getTime()) throw gateErrors.create.pow_invalid();
    let verified = false;
    try {
      const result = await verifySolution({
        challenge: payload.challenge,
        solution: payload.solution,
        deriveKey,
        hmacSignatureSecret: this.options.hmacKey,
        hmacKeySignatureSecret: this.options.hmacKey,
      });
      verified = result.verified;
    } catch {
      verified = false;
    }
    if (!verified) throw gateErrors.create.pow_invalid();
    return { nonce: payload.challenge.parameters.nonce, expires };
  }

  async precheck(attempt: RegistrationAttempt): Promise<void> {
    await this.check(attempt.inputs.altcha_solution);
  }

  async admit(attempt: RegistrationAttempt, trx: Parameters<RegistrationGate['admit']>[1]): Promise<void> {
    const { nonce, expires } = await this.check(attempt.inputs.altcha_solution);
    if (!(await this.options.spentProofs.spend(`altcha:${nonce}`, new Date(expires * 1000), trx))) throw gateErrors.create.pow_invalid();
  }
}
