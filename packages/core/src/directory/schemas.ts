import * as v from 'valibot';
import { ASSETS } from '../chains/index.js';
import { KEY_TYPES } from './key-forms.js';

export const assetSchema = v.picklist(ASSETS, `must be one of ${ASSETS.join(', ')}`);

/** A key as a wallet submits it (spec: AssetPublicKey / RegisterKeyRequest). */
export const submittedKey = v.strictObject({
  asset: assetSchema,
  public_key: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(200, 'is too long')),
  public_spend_key: v.optional(v.nullable(v.pipe(v.string('must be a string'), v.regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')))),
});

export const userKeyInfo = v.pipe(v.object({
  asset: assetSchema,
  key_type: v.picklist(KEY_TYPES),
  public_key: v.string(),
  public_spend_key: v.nullable(v.string()),
  proven: v.boolean(),
}), v.title('UserKeyInfo'));

export const userKeysResponse = v.pipe(v.object({ user_id: v.pipe(v.string(), v.uuid()), keys: v.array(userKeyInfo) }), v.title('UserKeysResponse'));

export const userIdParams = v.object({ user_id: v.pipe(v.string(), v.uuid('must be a UUID')) });
export const userAssetParams = v.object({ user_id: v.pipe(v.string(), v.uuid('must be a UUID')), asset: assetSchema });

export const usernameParams = v.object({ username: v.pipe(v.string(), v.maxLength(200, 'is too long')) });
export const myUsernameResponse = v.pipe(v.object({ username: v.nullable(v.string()) }), v.title('MyUsernameResponse'));
export const setUsernameRequest = v.pipe(v.strictObject({ username: v.pipe(v.string('must be a string'), v.maxLength(64, 'is too long')) }), v.title('SetUsernameRequest'));
export const setUsernameResponse = v.pipe(v.object({ username: v.string() }), v.title('SetUsernameResponse'));

export const lookupUsernameResponse = v.pipe(v.object({
  registered: v.boolean(),
  username: v.string(),
  user_id: v.nullable(v.pipe(v.string(), v.uuid())),
  keys: v.array(userKeyInfo),
}), v.title('LookupUsernameResponse'));

export const grinAddressParams = v.object({ addr: v.pipe(v.string(), v.maxLength(200, 'is too long')) });
export const grinAddressUserResponse = v.pipe(v.object({
  registered: v.boolean(),
  user_id: v.nullable(v.pipe(v.string(), v.uuid())),
  username: v.nullable(v.string()),
}), v.title('GrinAddressOwnerResponse'));

/** NIP-05 never refuses a query: anything that is not one plain name yields the empty document. */
export const nip05Query = v.looseObject({ name: v.optional(v.unknown()) });
export const nip05Response = v.pipe(v.object({ names: v.record(v.string(), v.string()), relays: v.record(v.string(), v.array(v.string())) }), v.title('Nip05Document'));
