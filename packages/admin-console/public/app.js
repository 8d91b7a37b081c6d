/* global document */
// The console's shell: login and logout, the menu, and the session's end.
import { call, onSessionExpired, setToken } from './api.js';
import { login } from './login.js';
import { el, setWritable } from './render.js';
import { act, clearMessages, report, showError, showNotice } from './ui.js';
import { VIEWS } from './views.js';

const $ = (id) => document.getElementById(id);
let current = VIEWS[0].id;

function showLogin() {
  setWritable(false);
  $('console-view').hidden = true;
  $('view').replaceChildren();
  $('login-view').hidden = false;
  $('logout').hidden = true;
  $('session').textContent = 'Not logged in';
}

async function openView(id) {
  current = id;
  clearMessages();
  for (const item of $('nav').children) {
    if (item.dataset.view === id) item.setAttribute('aria-current', 'page');
    else item.removeAttribute('aria-current');
  }
  const view = VIEWS.find((entry) => entry.id === id);
  const root = el('section', { id: `view-${id}`, 'aria-label': view.title });
  $('view').replaceChildren(root);
  try {
    await view.render(root);
  } catch (err) {
    report(err);
  }
}

async function start(session) {
  const me = await call('GET', '/admin/me');
  const full = me.scope === 'full';
  setWritable(full);
  $('session').textContent = `Logged in: ${me.scope} admin ${String(me.pubkey).slice(0, 12)}…, session until ${session.expires_at}`;
  $('login-view').hidden = true;
  $('console-view').hidden = false;
  $('logout').hidden = false;
  $('nav').replaceChildren(...VIEWS.map((view) => el('button', { type: 'button', id: `nav-${view.id}`, 'data-view': view.id, text: view.title, on: { click: () => void openView(view.id) } })));
  await openView(current);
  if (!full) showNotice('This key has read scope: every state-changing control is disabled.');
}

onSessionExpired((err) => {
  showLogin();
  showError(err, 'Your session ended; log in again. ');
});

$('login').addEventListener('click', (event) =>
  void act(event.currentTarget, async () => {
    const session = await login();
    await start(session);
  }),
);

$('logout').addEventListener('click', (event) =>
  void act(event.currentTarget, async () => {
    try {
      await call('POST', '/admin/logout');
    } finally {
      setToken(null);
      current = VIEWS[0].id;
      showLogin();
      showNotice('Logged out.');
    }
  }),
);

showLogin();
