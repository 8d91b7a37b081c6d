// The example web wallet: a Nostr key made in the page registers and logs in, sets a username,
// creates a public tip whose claim key is sealed in the browser, and opens the claim link.
// Everything the server verifies is built by @wallet/client (bundled as /wallet-client.js).
import {
  buildNostrRegister,
  createWalletClient,
  memoryNostrSigner,
  parseTipLink,
  sealPublicTip,
  seedFingerprint,
  tipAddress,
  tipClaim,
  tipShareLink,
  unwrap,
  WalletApiError,
} from '/wallet-client.js';
import { API_URL } from '/config.js';

const $ = (id) => document.getElementById(id);
const randomBytes = (n) => crypto.getRandomValues(new Uint8Array(n));
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

let accessToken = null;
const api = createWalletClient({ baseUrl: API_URL, accessToken: () => accessToken });

/** Shows the server's message for a refusal (its stable code in brackets), never half a result. */
function showError(err) {
  const box = $('error');
  box.textContent = err instanceof WalletApiError ? `${err.message} [${err.code}]` : String(err?.message ?? err);
  box.hidden = false;
}
const clearError = () => ($('error').hidden = true);

async function register() {
  clearError();
  const signer = memoryNostrSigner(randomBytes(32));
  const { nonce } = unwrap(await api.GET('/api/v1/auth/nostr/register-challenge'));
  const body = await buildNostrRegister({ signer, service: API_URL, nonce, seedFingerprint: seedFingerprint(randomBytes(64)) });
  const session = unwrap(await api.POST('/api/v1/auth/nostr/register', { body }));
  accessToken = session.access_token;
  const me = unwrap(await api.GET('/api/v1/auth/me'));
  $('session').textContent = `Logged in: account ${me.id}, npub key ${me.nostr_pubkey.slice(0, 12)}…`;
  $('register').hidden = true;
  $('username-section').hidden = false;
  $('tip-section').hidden = false;
}

async function setUsername(event) {
  event.preventDefault();
  clearError();
  const username = $('username').value.trim();
  const result = unwrap(await api.POST('/api/v1/users/me/username', { body: { username } }));
  $('username-result').textContent = `Your username is ${result.username}.`;
}

async function createTip(event) {
  event.preventDefault();
  clearError();
  // The tip's one-time key: its P2WPKH address is where the wallet sends the amount (a draft is
  // funded later); the key itself goes to the claimer only, sealed under the link's secret.
  const key = hex(randomBytes(32));
  const sealed = sealPublicTip(tipClaim('btc', key));
  const body = { asset: 'btc', amount: $('amount').value.trim(), tip_address: tipAddress(key, 'bc'), draft: true, secret_hash: sealed.secret_hash, ciphertext: sealed.ciphertext };
  const created = unwrap(await api.POST('/api/v1/tips/social', { body }));
  // The link must lead back to this wallet's page: the page it names reads the secret.
  const link = tipShareLink(created.share_url, sealed.fragment, `${location.origin}/tip/`);
  $('tip-result').textContent = `Tip ${created.tip_id} created (${created.status}). Share the link; the secret after # never reaches the server.`;
  const anchor = $('claim-link');
  anchor.href = link;
  anchor.hidden = false;
}

async function showTip() {
  const { tip_id, fragment } = parseTipLink(location.href);
  const tip = unwrap(await api.GET('/api/v1/tips/social/{tip_id}/public', { params: { path: { tip_id } } }));
  $('tip-asset').textContent = tip.asset.toUpperCase();
  $('tip-amount').textContent = tip.amount;
  $('tip-status').textContent = tip.status;
  $('tip-claimable').textContent = tip.claimable ? 'yes' : 'not yet (the tip is not funded)';
  $('tip-secret').textContent = `${fragment.length / 2} bytes, kept in this page`;
  $('tip-view').hidden = false;
  // Once funded, a logged-in holder claims it: the claim answer's ciphertext and this fragment give
  // the tip's key through openPublicTip (docs/wallet-integration.md).
}

const guard = (work) => (event) => work(event).catch(showError);
if (location.pathname.startsWith('/tip/')) {
  guard(showTip)();
} else {
  $('wallet-view').hidden = false;
  $('register').addEventListener('click', guard(register));
  $('username-form').addEventListener('submit', guard(setUsername));
  $('tip-form').addEventListener('submit', guard(createTip));
}
