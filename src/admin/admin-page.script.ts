/**
 * The page's script, inline (no build step, no CDN): it reads the JSON API beside the page
 * and acts through it. Every value from the API goes in through textContent, never as HTML:
 * keys carry what clients sent.
 */
export const ADMIN_PAGE_SCRIPT = `
'use strict';
const api = location.pathname.replace(/\\/+$/, '') + '/api/';
const $ = (id) => document.getElementById(id);
const cell = (row, text) => { const td = row.insertCell(); td.textContent = text; return td; };
const button = (td, label, action) => {
  const b = document.createElement('button'); b.textContent = label; b.dataset.action = label;
  b.addEventListener('click', action); td.appendChild(b);
};
const seconds = (ms) => (ms / 1000).toFixed(ms < 10000 ? 1 : 0) + ' s';
async function call(path, method, body) {
  const res = await fetch(api + path, { method: method || 'GET', credentials: 'same-origin',
    headers: body ? { 'content-type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) throw new Error((data && data.message) || res.statusText);
  return data;
}
function say(text, failed) { const s = $('status'); s.textContent = text; s.className = failed ? 'failed' : ''; }
const act = (verb, ref) => async () => {
  try {
    const data = await call(verb, 'POST', { limit: ref.limit, name: ref.name, key: ref.key });
    say(verb === 'peek' ? ref.key + ': ' + data.remaining + ' of ' + data.limit + ' left, reset in ' + seconds(data.resetMs) +
      (data.blockedMs > 0 ? ', blocked ' + seconds(data.blockedMs) : '') : verb + ': ' + ref.key);
    refresh();
  } catch (e) { say(verb + ' failed: ' + e.message, true); }
};
function keyRows(table, rows, value) {
  const body = $(table).tBodies[0]; body.textContent = '';
  if (rows.length === 0) { const r = body.insertRow(); const td = cell(r, 'none'); td.colSpan = 4; td.className = 'empty'; }
  for (const row of rows) {
    const r = body.insertRow(); r.dataset.key = row.key;
    cell(r, row.key).className = 'key'; cell(r, row.name + ' \\u00b7 ' + row.limit).className = 'limit';
    cell(r, value(row)).className = 'num';
    const td = cell(r, '');
    button(td, 'peek', act('peek', row)); button(td, 'reset', act('reset', row)); button(td, 'unblock', act('unblock', row));
  }
}
async function refresh() {
  try {
    const minutes = $('minutes').value;
    const [top, blocked, overrides, networks] = await Promise.all([
      call('top?minutes=' + minutes), call('blocked'), call('overrides'), call('networks')]);
    keyRows('top', top.keys, (row) => String(row.count));
    keyRows('blocked', blocked.keys, (row) => seconds(row.blockedMs));
    const body = $('overrides').tBodies[0]; body.textContent = '';
    for (const o of overrides.overrides) {
      const r = body.insertRow(); cell(r, o.name); cell(r, JSON.stringify(o.options));
      cell(r, new Date(o.expiresAtMs).toLocaleTimeString());
      button(cell(r, ''), 'remove', async () => { await call('overrides/' + encodeURIComponent(o.name), 'DELETE'); refresh(); });
    }
    if (document.activeElement !== $('allow') && document.activeElement !== $('deny')) {
      $('allow').value = networks.allow.join('\\n'); $('deny').value = networks.deny.join('\\n');
    }
    $('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  } catch (e) { say('could not load: ' + e.message, true); }
}
$('override-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    const options = JSON.parse($('override-options').value);
    await call('overrides/' + encodeURIComponent($('override-name').value), 'PUT',
      { options: options, ttl: Number($('override-ttl').value) });
    say('override saved'); refresh();
  } catch (e) { say('override refused: ' + e.message, true); }
});
$('networks-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const lines = (id) => $(id).value.split(/\\s+/).filter(Boolean);
  try { await call('networks', 'PUT', { allow: lines('allow'), deny: lines('deny') }); say('networks saved'); refresh(); }
  catch (e) { say('networks refused: ' + e.message, true); }
});
$('minutes').addEventListener('change', refresh);
refresh();
setInterval(refresh, 2000);
`;
