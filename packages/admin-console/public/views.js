// Every view of the console and the API calls it makes. Answers are rendered generically
// (render.js), so a field added or renamed by the API still shows.
import { call, segment } from './api.js';
import { el, renderValue } from './render.js';
import { act, confirmButton, field, load, showNotice } from './ui.js';

const input = (id, props = {}) => el('input', { id, name: id, autocomplete: 'off', ...props });
const button = (id, text, onClick, props = {}) => el('button', { id, type: 'button', text, ...props, on: { click: (event) => void act(event.currentTarget, onClick) } });
/** A form whose submit runs `run` through its submit button. */
const form = (id, submit, run, ...fields) =>
  el('form', { id, on: { submit: (event) => { event.preventDefault(); void act(submit, run); } } }, ...fields, submit);
const submitButton = (id, text, props = {}) => el('button', { id, type: 'submit', class: 'primary', text, ...props });
const idOf = (row) => row.id ?? row.user_id ?? row.tip_id;
/** An optional number typed as text: sent as a number when it is one, else as typed (the API names the problem). */
const numberOrText = (text) => (/^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text);

function keysView(root) {
  const list = el('div', { id: 'keys-list' });
  const pubkey = input('key-pubkey', { placeholder: '64 hex or npub1…', write: true });
  const scope = el('select', { id: 'key-scope', name: 'scope', write: true }, el('option', { value: 'read', text: 'read' }), el('option', { value: 'full', text: 'full' }));
  const refresh = () =>
    load(list, () => call('GET', '/admin/keys'), {
      nestedActions: {
        keys: (row) =>
          row.revoked_at
            ? null
            : confirmButton('Revoke', async () => {
                await call('POST', `/admin/keys/${segment(row.id)}/revoke`);
                showNotice(`Key ${row.id} revoked; its sessions ended.`);
                await refresh();
              }),
      },
    });
  root.append(
    el('h2', { text: 'Admin keys' }),
    form('key-form', submitButton('key-add', 'Add key', { write: true }), async () => {
      const key = await call('POST', '/admin/keys', { body: { pubkey: pubkey.value.trim(), scope: scope.value } });
      pubkey.value = '';
      showNotice(`Key ${key.id} added with scope ${key.scope}; its holder activates it by logging in once.`);
      await refresh();
    }, field('Public key', pubkey), field('Scope', scope)),
    list,
  );
  return refresh();
}

const SECTIONS = ['landing', 'retention', 'restore'];
/**
 * The fields of each section (docs/admin.md, "Operator settings"): an unset landing text is absent
 * from every part of the answer, so the form cannot learn it there. A field the API adds later
 * shows too (the form takes every key of the answer as well).
 */
const KNOWN_FIELDS = {
  landing: { title: 'text', tagline: 'text', announcement: 'text', contact_url: 'text' },
  retention: { login_event_retention_days: 'number' },
  restore: { ip_threshold: 'number', fail_threshold: 'number', window_sec: 'number' },
};

function settingsView(root) {
  const body = el('div', { id: 'settings-body' });
  const tabs = el('div', { class: 'row', role: 'tablist' }, SECTIONS.map((section) => el('button', { type: 'button', id: `settings-tab-${section}`, 'data-section': section, text: section, on: { click: () => void open(section) } })));
  const show = (data) => {
    const known = KNOWN_FIELDS[data.section] ?? {};
    const fields = Object.keys(known);
    for (const part of [data.defaults, data.effective, data.overlay]) for (const key of Object.keys(part ?? {})) if (!fields.includes(key)) fields.push(key);
    const inputs = fields.map((name) => {
      const reference = data.defaults?.[name] ?? data.effective?.[name];
      const numeric = known[name] === 'number' || typeof reference === 'number';
      return [name, numeric, input(`setting-${name}`, { value: data.overlay?.[name] ?? '', placeholder: `default: ${data.defaults?.[name] ?? '—'}`, inputmode: numeric ? 'numeric' : undefined, write: true })];
    });
    const rest = Object.fromEntries(Object.entries(data).filter(([key]) => !['effective', 'overlay', 'defaults'].includes(key)));
    body.replaceChildren(
      el('h3', { text: `Effective (${data.section})` }),
      el('div', { id: 'settings-effective' }, renderValue(data.effective)),
      el('p', { class: 'muted', text: 'Edit the overlay: an empty field falls back to the environment or the default.' }),
      form('settings-form', submitButton('settings-save', 'Save section', { write: true }), async () => {
        const values = {};
        for (const [name, numeric, control] of inputs) {
          const text = control.value.trim();
          if (text !== '') values[name] = numeric ? numberOrText(text) : text;
        }
        const saved = await call('PUT', `/admin/config/${segment(data.section)}`, { body: values });
        show(saved);
        showNotice(`Saved the ${saved.section} section (applies: ${saved.apply ?? 'see the API'}).`);
      }, inputs.map(([name, , control]) => field(name, control))),
      el('h3', { text: 'Overlay' }),
      renderValue(data.overlay),
      el('h3', { text: 'Defaults' }),
      renderValue(data.defaults),
      el('h3', { text: 'Section' }),
      renderValue(rest),
    );
  };
  const open = async (section) => {
    for (const tab of tabs.children) tab.setAttribute('aria-selected', String(tab.dataset.section === section));
    const data = await load(body, () => call('GET', `/admin/config/${segment(section)}`));
    if (data) show(data);
  };
  root.append(el('h2', { text: 'Operator settings' }), tabs, body);
  return open(SECTIONS[0]);
}

function auditView(root) {
  // The API resumes after its newest sealed checkpoint unless asked for the whole chain.
  const verify = (full) =>
    load(verified, () => call('GET', `/admin/audit/verify${full ? '?full=true' : ''}`), {
      before: (data) => {
        const from = data.from_seq > 0 ? `, resumed after the checkpoint at entry ${data.from_seq}` : '';
        return el('p', { id: 'verify-summary', class: data.ok === true ? 'ok' : 'bad', text: data.ok === true ? `Chain verified: ok (${data.entries} entries${from}).` : `Chain broken at seq ${data.broken_at}: ${data.reason}` });
      },
    });
  const after = input('audit-after', { value: '0', inputmode: 'numeric' });
  const limit = input('audit-limit', { value: '100', inputmode: 'numeric' });
  const action = input('audit-action', { placeholder: 'exact action, e.g. account_suspended' });
  const target = input('audit-target', { placeholder: 'exact target, e.g. user:<id>' });
  const filter = input('audit-filter', { placeholder: 'action, target, key prefix…', type: 'search' });
  const list = el('div', { id: 'audit-list' });
  const verified = el('div', { id: 'verify-result' });
  let entries = [];
  const history = [];
  const draw = () => {
    const needle = filter.value.trim().toLowerCase();
    const shown = needle === '' ? entries : entries.filter((entry) => JSON.stringify(entry).toLowerCase().includes(needle));
    list.replaceChildren(el('p', { class: 'muted', text: `${shown.length} of ${entries.length} entries on this page (after seq ${after.value || '0'})` }), renderValue(shown));
  };
  const fetchPage = async () => {
    const data = await load(list, () => call('GET', '/admin/audit', { query: { after_seq: after.value.trim(), limit: limit.value.trim(), action: action.value.trim(), target: target.value.trim() } }));
    if (data) {
      entries = Array.isArray(data.entries) ? data.entries : [];
      draw();
    }
  };
  filter.addEventListener('input', draw);
  root.append(
    el('h2', { text: 'Audit chain' }),
    form('audit-form', submitButton('audit-load', 'Load'), async () => {
      history.length = 0;
      await fetchPage();
    }, field('After seq', after), field('Limit (1–500)', limit), field('Action', action), field('Target', target)),
    el('div', { class: 'row' },
      button('audit-prev', 'Previous page', async () => {
        after.value = String(history.pop() ?? 0);
        await fetchPage();
      }),
      button('audit-next', 'Next page', async () => {
        const last = entries.at(-1);
        if (last === undefined) return showNotice('This is the newest page.');
        history.push(Number(after.value) || 0);
        after.value = String(last.seq);
        await fetchPage();
      }),
      button('audit-verify', 'Verify the chain', () => verify(false)),
      button('audit-verify-full', 'Verify from the first entry', () => verify(true)),
    ),
    field('Filter this page', filter),
    verified,
    list,
  );
  return fetchPage();
}

function usersView(root) {
  const q = input('users-q', { placeholder: 'user id, username, npub…', type: 'search' });
  const list = el('div', { id: 'users-list' });
  const userId = input('user-id', { placeholder: 'user id' });
  const detail = el('div', { id: 'user-detail' });
  const open = async (id) => {
    userId.value = id;
    const reason = input('user-reason', { placeholder: 'why (kept in the audit chain)', write: true });
    const moderate = (verb) => async () => {
      await call('POST', `/admin/users/${segment(id)}/${verb}`, { body: { reason: reason.value.trim() } });
      showNotice(`User ${id}: ${verb === 'suspend' ? 'suspended' : 'reinstated'}.`);
      if (q.value.trim() !== '') await find();
      await open(id);
    };
    await load(detail, () => call('GET', `/admin/users/${segment(id)}`), {
      before: () =>
        el('div', {},
          el('h3', { text: `User ${id}` }),
          el('div', { class: 'row' }, field('Reason', reason), confirmButton('Suspend', moderate('suspend'), { id: 'user-suspend' }), button('user-reinstate', 'Reinstate', moderate('reinstate'), { write: true })),
        ),
    });
  };
  const find = () =>
    load(list, () => call('GET', '/admin/users', { query: { q: q.value.trim() } }), {
      nestedActions: { users: (row) => el('button', { type: 'button', text: 'Open', on: { click: (event) => void act(event.currentTarget, () => open(String(idOf(row)))) } }) },
    });
  root.append(
    el('h2', { text: 'Users' }),
    form('users-form', submitButton('users-find', 'Find'), () => find(), field('Search', q)),
    list,
    form('user-form', submitButton('user-open', 'Open'), () => open(userId.value.trim()), field('User id', userId)),
    detail,
  );
}

function invitesView(root) {
  const count = input('invite-count', { value: '1', inputmode: 'numeric', write: true });
  const label = input('invite-label', { placeholder: 'optional', write: true });
  const expires = input('invite-expires', { placeholder: 'optional, 2027-01-31T00:00:00Z', write: true });
  const once = el('div', { id: 'invites-created' });
  const state = input('invite-state', { placeholder: 'any state', list: 'invite-states' });
  const list = el('div', { id: 'invites-list' });
  const refresh = () =>
    load(list, (page) => call('GET', '/admin/invites', { query: { state: state.value.trim(), ...page } }), {
      nestedActions: {
        invites: (row) =>
          confirmButton('Revoke', async () => {
            await call('POST', `/admin/invites/${segment(row.id)}/revoke`);
            showNotice(`Invite ${row.id} revoked.`);
            await refresh();
          }),
      },
    });
  root.append(
    el('h2', { text: 'Invites' }),
    form('invite-form', submitButton('invite-create', 'Create invites', { write: true }), async () => {
      const body = { count: numberOrText(count.value.trim()) };
      if (label.value.trim() !== '') body.label = label.value.trim();
      if (expires.value.trim() !== '') body.expires_at = expires.value.trim();
      const data = await call('POST', '/admin/invites', { body });
      // The code first: on a phone it is the column the operator came for.
      const minted = Array.isArray(data?.invites) ? data.invites.map(({ code, ...rest }) => ({ code, ...rest })) : [];
      once.replaceChildren(el('div', { class: 'once' }, el('p', { text: 'Shown once: copy these codes now. The server keeps no way to show them again.' }), renderValue({ invites: minted })));
      showNotice(`${Array.isArray(data?.invites) ? data.invites.length : 0} invite(s) created.`);
    }, field('How many', count), field('Label', label), field('Expires at', expires)),
    once,
    form('invites-form', submitButton('invites-load', 'List'), refresh, field('State', state)),
    el('datalist', { id: 'invite-states' }, ['all', 'unused', 'used', 'expired', 'revoked'].map((value) => el('option', { value }))),
    list,
  );
}

function lookup(id, text, placeholder, path) {
  const value = input(`${id}-id`, { placeholder });
  const out = el('div', { id: `${id}-detail` });
  return [form(`${id}-form`, submitButton(`${id}-open`, 'Open'), () => load(out, () => call('GET', path(segment(value.value)))), field(text, value)), out];
}

function tipsView(root) {
  const out = el('div', { id: 'tips-out' });
  root.append(
    el('h2', { text: 'Tips' }),
    el('div', { class: 'row' }, button('tips-stats', 'Statistics', () => load(out, () => call('GET', '/admin/tips/stats'))), button('tips-stuck', 'Stuck tips', () => load(out, (page) => call('GET', '/admin/tips/stuck', { query: page })))),
    out,
    ...lookup('tip', 'Tip id', 'tip id', (id) => `/admin/tips/${id}`),
  );
  return load(out, () => call('GET', '/admin/tips/stats'));
}

function premiumView(root) {
  const state = el('select', { id: 'premium-state', name: 'state' }, ['', 'pending', 'settled_unactivated', 'activated'].map((value) => el('option', { value, text: value || 'any state' })));
  const out = el('div', { id: 'premium-out' });
  root.append(
    el('h2', { text: 'Premium' }),
    form('premium-form', submitButton('premium-load', 'List invoices'), () => load(out, (page) => call('GET', '/admin/premium/invoices', { query: { state: state.value, ...page } })), field('State', state)),
    out,
    ...lookup('premium-user', 'User id', 'user id', (id) => `/admin/premium/users/${id}`),
  );
}

/** The erasure request states (packages/erasure: ERASURE_STATUS). */
const ERASURE_STATES = ['requested', 'confirmed', 'cancelled', 'expired', 'completed'];

function erasureView(root) {
  const state = input('erasure-state', { placeholder: 'a state', list: 'erasure-states' });
  const out = el('div', { id: 'erasure-out' });
  root.append(
    el('h2', { text: 'Erasure' }),
    el('datalist', { id: 'erasure-states' }, ERASURE_STATES.map((value) => el('option', { value }))),
    form('erasure-form', submitButton('erasure-load', 'List requests'), () => load(out, (page) => call('GET', '/admin/erasure/requests', { query: { state: state.value.trim(), ...page } })), field('State', state)),
    el('div', { class: 'row' }, button('erasure-stuck', 'Stuck erasures', () => load(out, (page) => call('GET', '/admin/erasure/stuck', { query: page }))), button('erasure-sweep', 'Sweep status', () => load(out, () => call('GET', '/admin/erasure/sweep')))),
    out,
  );
}

function systemView(root) {
  const out = el('div', { id: 'system-out' });
  root.append(el('h2', { text: 'System' }), el('div', { class: 'row' }, button('system-refresh', 'Refresh', () => load(out, () => call('GET', '/admin/system')))), out);
  return load(out, () => call('GET', '/admin/system'));
}

/** In menu order. */
export const VIEWS = [
  { id: 'keys', title: 'Keys', render: keysView },
  { id: 'settings', title: 'Settings', render: settingsView },
  { id: 'audit', title: 'Audit', render: auditView },
  { id: 'users', title: 'Users', render: usersView },
  { id: 'invites', title: 'Invites', render: invitesView },
  { id: 'tips', title: 'Tips', render: tipsView },
  { id: 'premium', title: 'Premium', render: premiumView },
  { id: 'erasure', title: 'Erasure', render: erasureView },
  { id: 'system', title: 'System', render: systemView },
];
