import { defineErrors } from '../errors/index.js';

/** Operator administration: admin keys, admin sessions, the setup latch, the settings overlay. */
export const adminErrors = defineErrors({
  admin_unauthorized: { status: 401, message: 'Missing or invalid admin token.' },
  admin_login_refused: { status: 401, message: 'The proof does not belong to a live admin key.' },
  admin_setup_incomplete: { status: 403, message: 'Admin access opens once first-run setup is complete (`wallet-backend setup <pubkey>`).' },
  admin_forbidden: { status: 403, message: 'This admin key’s scope does not allow this action.' },
  admin_key_exists: { status: 409, message: 'A live admin key with this public key already exists.' },
  admin_key_not_found: { status: 404, message: 'No such live admin key.' },
  admin_last_key: { status: 409, message: 'The last live full-scope admin key cannot be revoked; use `wallet-backend reset-setup` from the operator shell.' },
  admin_user_not_found: { status: 404, message: 'No such user.' },
  account_already_suspended: { status: 409, message: 'This account is already suspended.' },
  account_not_suspended: { status: 409, message: 'This account is not suspended.' },
  account_suspended: { status: 403, message: 'This account is suspended by the operator of this service.' },
  setting_section_unknown: { status: 404, message: 'No such settings section (landing, retention, restore).' },
});
