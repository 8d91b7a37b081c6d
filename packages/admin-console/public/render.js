/* global document */
// DOM helpers and a generic JSON renderer: an array of objects becomes a table, an object a
// definition list, so a field the API adds or renames still shows. Text only (textContent), never HTML.

let writable = false;

/** Whether state-changing controls are enabled: only for a `full` admin. */
export function setWritable(value) {
  writable = value;
}

export function canWrite() {
  return writable;
}

/**
 * `el('button', { id, class, text, type, write: true, on: { click } }, ...children)`. A control
 * made with `write: true` is a state-changing one: disabled unless the admin's scope is `full`.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') node.textContent = String(value);
    else if (name === 'class') node.className = value;
    else if (name === 'on') for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
    else if (name === 'write') {
      node.dataset.write = '';
      if (!writable) {
        node.disabled = true;
        node.title = 'Needs a full-scope admin key';
      }
    } else if (name === 'value') node.value = String(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Any JSON value as DOM. `actions(row)` adds a cell of controls to each row of a top-level table. */
export function renderValue(value, options = {}) {
  if (value === null || value === undefined) return el('span', { class: 'muted', text: '—' });
  if (Array.isArray(value)) {
    if (value.length === 0) return el('span', { class: 'muted', text: 'none' });
    if (value.every(isPlainObject)) return renderTable(value, options.actions);
    return el('span', { text: value.map((item) => (isPlainObject(item) || Array.isArray(item) ? JSON.stringify(item) : String(item))).join(', ') });
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return el('span', { class: 'muted', text: '{}' });
    return el('dl', {}, entries.map(([key, item]) => [el('dt', { text: key }), el('dd', {}, renderValue(item, { actions: options.nestedActions?.[key] }))]));
  }
  return el('span', { text: String(value) });
}

export function renderTable(rows, actions) {
  const columns = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  const head = el('tr', {}, columns.map((column) => el('th', { scope: 'col', text: column })), actions ? el('th', { scope: 'col', text: 'actions' }) : null);
  const body = rows.map((row) =>
    el('tr', {}, columns.map((column) => el('td', {}, renderValue(row[column]))), actions ? el('td', {}, actions(row)) : null),
  );
  return el('div', { class: 'table-wrap' }, el('table', {}, el('thead', {}, head), el('tbody', {}, body)));
}
