import { defineErrors } from '../errors/index.js';

/** Directory errors: receiving keys, usernames. */
export const directoryErrors = defineErrors({
  key_invalid: { status: 400, message: 'The public key is not valid for this asset.' },
  key_proof_invalid: { status: 400, message: 'The signature does not prove control of this key for this account.' },
  key_not_found: { status: 404, message: 'No key is registered for this asset.' },
  username_invalid: { status: 400, message: 'A username is 3 to 30 characters: a-z, 0-9 and underscore.' },
  username_unavailable: { status: 409, message: 'This username is taken or reserved.' },
});
