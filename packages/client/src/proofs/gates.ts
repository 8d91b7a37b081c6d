/** Registration-gate inputs (docs/wallet-integration.md §7): sent by a NEW identity only. */
export interface GateInputs {
  /** The base64 ALTCHA payload ({@link solveAltcha}'s `payload`). */
  altcha_solution?: string;
  invite_code?: string;
  payment_invoice_id?: string;
}

/** A receiving key as registration bodies list it. */
export interface SubmittedKey {
  asset: 'btc' | 'ltc' | 'xmr' | 'wow' | 'grin';
  public_key: string;
  public_spend_key?: string | null;
}

/** The gate fields that are set, and nothing else (the server's schemas are strict). */
export function gateFields(gates: GateInputs | undefined): GateInputs {
  const out: GateInputs = {};
  if (gates?.altcha_solution !== undefined) out.altcha_solution = gates.altcha_solution;
  if (gates?.invite_code !== undefined) out.invite_code = gates.invite_code;
  if (gates?.payment_invoice_id !== undefined) out.payment_invoice_id = gates.payment_invoice_id;
  return out;
}
