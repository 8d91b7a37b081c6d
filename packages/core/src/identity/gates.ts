import type { Knex } from 'knex';

/** Who is registering: a new BTC identity (extension, rotation) or a new Nostr identity. */
export type RegistrationIdentity = { kind: 'pubkey_hash'; value: string } | { kind: 'npub'; value: string };

/** What a wallet may send to pass the operator's gates (spec › Authentication 7). */
export interface GateInputs {
  altcha_solution?: string | undefined;
  invite_code?: string | undefined;
  payment_invoice_id?: string | undefined;
}

export interface RegistrationAttempt {
  identity: RegistrationIdentity;
  inputs: GateInputs;
}

/**
 * A registration gate (proof of work, invite, payment). `precheck` does the slow or remote
 * checks (a hash search, a processor call) BEFORE the registering transaction and consumes
 * nothing; `admit` runs inside that transaction, so whatever it consumes (a solution, an invite,
 * an invoice) is consumed exactly when the registration commits. Both refuse by throwing.
 */
export interface RegistrationGate {
  /** Unique; gates run in registration order (core registers proof of work, invite, payment). */
  name: string;
  precheck?(attempt: RegistrationAttempt): Promise<void>;
  admit(attempt: RegistrationAttempt, trx: Knex.Transaction): Promise<void>;
}

/**
 * The ONE hook point where new identities meet the gates. Returning wallets never reach it:
 * callers run it only on paths that create an identity or re-point one (rotation).
 */
export class RegistrationGates {
  private readonly gates: RegistrationGate[] = [];
  private readonly prechecked = new WeakSet<RegistrationAttempt>();

  add(gate: RegistrationGate): void {
    if (this.gates.some((existing) => existing.name === gate.name)) throw new Error(`registration gate "${gate.name}" is registered twice`);
    this.gates.push(gate);
  }

  /** Every gate's precheck, in order; call it outside any transaction when the identity looks new. */
  async precheck(attempt: RegistrationAttempt): Promise<void> {
    for (const gate of this.gates) await gate.precheck?.(attempt);
    this.prechecked.add(attempt);
  }

  /**
   * Every gate's admit, in order, inside the registering transaction. An attempt that was not
   * prechecked (the identity turned out new only inside the transaction) is prechecked here
   * first: slower, never weaker.
   */
  async admit(attempt: RegistrationAttempt, trx: Knex.Transaction): Promise<void> {
    if (!this.prechecked.has(attempt)) await this.precheck(attempt);
    for (const gate of this.gates) await gate.admit(attempt, trx);
  }
}
