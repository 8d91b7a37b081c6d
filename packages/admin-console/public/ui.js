/* global document */
// Messages, busy buttons and loading a call's answer into a region.
import { loggedIn } from './api.js';
import { canWrite, el, renderValue } from './render.js';

const $ = (id) => document.getElementById(id);

export function clearMessages() {
  $('error').hidden = true;
  $('error').replaceChildren();
  $('notice').hidden = true;
  $('notice').textContent = '';
}

export function showNotice(text) {
  $('notice').textContent = text;
  $('notice').hidden = false;
}

/** The API's own message and code (and each invalid field), never a paraphrase. */
export function showError(err, prefix = '') {
  const code = err && typeof err.code === 'string' ? err.code : 'error';
  const message = err instanceof Error ? err.message : String(err);
  const details = err && Array.isArray(err.details) ? err.details : [];
  $('error').replaceChildren(
    el('p', { text: `${prefix}${message} [${code}]` }),
    details.length > 0 ? el('ul', {}, details.map((item) => el('li', { text: `${item.path ?? ''}: ${item.message ?? ''}` }))) : null,
  );
  $('error').hidden = false;
  $('error').scrollIntoView({ block: 'nearest' });
}

/** Reports a failure, except an ended session (the login view already says so). */
export function report(err) {
  if (err && err.code === 'admin_unauthorized' && !loggedIn()) return;
  showError(err);
}

/** Runs one API action from `button`: disabled while it runs (no double submit), its error shown. */
export async function act(button, run) {
  clearMessages();
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    await run();
  } catch (err) {
    report(err);
  } finally {
    button.removeAttribute('aria-busy');
    button.disabled = button.dataset.write !== undefined && !canWrite();
  }
}

/** A destructive action: the first click arms it, a second click within 5 s runs it. */
export function confirmButton(text, run, props = {}) {
  const button = el('button', {
    type: 'button',
    class: 'danger',
    text,
    write: true,
    ...props,
    on: {
      click: () => {
        if (button.dataset.armed === undefined) {
          button.dataset.armed = '';
          button.textContent = `Confirm: ${text.toLowerCase()}`;
          setTimeout(() => {
            delete button.dataset.armed;
            button.textContent = text;
          }, 5_000);
          return;
        }
        delete button.dataset.armed;
        button.textContent = text;
        void act(button, run);
      },
    },
  });
  return button;
}

export const isFeatureOff = (err) => err && err.status === 404 && err.code === 'not_found';

/**
 * Loads `fetch(page)` into `target` and renders the answer generically. A route the server does
 * not have (404 not_found) means the feature is off. A `next_after` in the answer (every admin list's cursor) adds a "Next page".
 */
export async function load(target, fetch, options = {}) {
  target.replaceChildren(el('p', { class: 'muted', text: 'Loading…' }));
  try {
    const data = await fetch(options.page ?? {});
    const parts = [options.before ? options.before(data) : null, renderValue(data, options)];
    // Every admin list pages alike: `after` ← the answer's `next_after` (null on the last page).
    const page = typeof data?.next_after === 'string' && data.next_after !== '' ? { after: data.next_after } : null;
    if (page !== null) {
      const next = el('button', { type: 'button', text: 'Next page', on: { click: () => void load(target, fetch, { ...options, page }) } });
      parts.push(el('div', { class: 'row' }, next));
    }
    target.replaceChildren(...parts.filter((part) => part !== null));
    return data;
  } catch (err) {
    if (isFeatureOff(err)) {
      target.replaceChildren(el('p', { class: 'off', text: `This feature is off on this server (the API answered: ${err.message} [${err.code}]).` }));
    } else {
      target.replaceChildren(el('p', { class: 'bad', text: `${err.message} [${err.code ?? 'error'}]` }));
      report(err);
    }
    return undefined;
  }
}

export const field = (text, control) => el('label', {}, text, control);
