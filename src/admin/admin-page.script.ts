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
const button = (td, label, action, title) => {
  const b = document.createElement('button'); b.textContent = label; b.dataset.action = label;
  if (title) b.title = title;
  b.addEventListener('click', action); td.appendChild(b);
};
// Reset and unblock do the same (a block lives beside the count that caused it): each table
// offers the one its rows call for, and each says what it does.
const DOES = {
  peek: 'Show what the key has left, without taking anything',
  reset: 'Forget this key\u2019s count (and any block): its next request starts a fresh limit',
  unblock: 'Lift the block, and forget the count that caused it: its next request starts a fresh limit',
};
const DONE = { reset: 'count forgotten, the next request starts afresh', unblock: 'unblocked, its count forgotten' };
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
    if (verb === 'peek') {
      // Nothing left or blocked: the key is refused now, which is not good news.
      say(ref.key + ': ' + data.remaining + ' of ' + data.limit + ' left, reset in ' + seconds(data.resetMs) +
        (data.blockedMs > 0 ? ', blocked ' + seconds(data.blockedMs) : ''), data.remaining === 0 || data.blockedMs > 0);
    } else say(ref.key + ': ' + DONE[verb]);
    refresh();
  } catch (e) { say(verb + ' failed: ' + e.message, true); }
};
function keyRows(table, rows, value, verb) {
  const body = $(table).tBodies[0]; body.textContent = '';
  if (rows.length === 0) { const r = body.insertRow(); const td = cell(r, 'none'); td.colSpan = 4; td.className = 'empty'; }
  for (const row of rows) {
    const r = body.insertRow(); r.dataset.key = row.key;
    cell(r, row.key).className = 'key'; cell(r, row.name + ' \\u00b7 ' + row.limit).className = 'limit';
    cell(r, value(row)).className = 'num';
    const td = cell(r, '');
    button(td, 'peek', act('peek', row), DOES.peek); button(td, verb, act(verb, row), DOES[verb]);
  }
}
async function refresh() {
  try {
    const minutes = $('minutes').value;
    const [top, blocked, overrides, networks, upstreams] = await Promise.all([
      call('top?minutes=' + minutes), call('blocked'), call('overrides'), call('networks'), call('upstreams')]);
    const upstreamRows = $('upstreams').tBodies[0]; upstreamRows.textContent = '';
    for (const u of upstreams.upstreams) {
      const r = upstreamRows.insertRow(); cell(r, u.name); cell(r, u.rate + ' /s').className = 'num';
      cell(r, u.learnedRate.toFixed(1) + ' /s').className = 'num';
      cell(r, u.pausedForMs > 0 ? seconds(u.pausedForMs) : 'no').className = 'num'; cell(r, String(u.waiting)).className = 'num';
    }
    keyRows('top', top.keys, (row) => String(row.count), 'reset');
    keyRows('blocked', blocked.keys, (row) => seconds(row.blockedMs), 'unblock');
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
