import type { Asset } from '../chains/index.js';
import { looksLikeSlatepackAddress } from '../crypto/index.js';
import type { UserKeyInfo } from './key-repo.js';

/**
 * The key a payer should use for `asset`, from a user's rows. Grin prefers the slatepack address
 * row and falls back to the primary row only while it still holds a pre-split address, so a
 * sender never receives a bare public key where an address belongs.
 */
export function receivingKey(rows: readonly UserKeyInfo[], asset: Asset): UserKeyInfo | null {
  if (asset !== 'grin') return rows.find((row) => row.asset === asset && row.key_type === 'primary') ?? null;
  const address = rows.find((row) => row.asset === 'grin' && row.key_type === 'slatepack_address');
  if (address !== undefined) return address;
  const primary = rows.find((row) => row.asset === 'grin' && row.key_type === 'primary');
  return primary !== undefined && looksLikeSlatepackAddress(primary.public_key) ? primary : null;
}
