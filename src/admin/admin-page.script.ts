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
const SVG = 'http://www.w3.org/2000/svg';
// The limit's recent history as a line: time across, 0 to its highest value up.
function chart(td, history) {
  const svg = document.createElementNS(SVG, 'svg'); svg.setAttribute('class', 'chart');
  svg.setAttribute('viewBox', '0 0 160 32'); svg.setAttribute('preserveAspectRatio', 'none');
  const first = history[0].atMs, span = Math.max(1, history[history.length - 1].atMs - first);
  const top = Math.max(1, ...history.map((p) => p.limit));
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute('points', history.map((p) =>
    (((p.atMs - first) / span) * 160).toFixed(1) + ',' + (31 - (p.limit / top) * 30).toFixed(1)).join(' '));
  const title = document.createElementNS(SVG, 'title');
  title.textContent = history.map((p) => p.limit).join(' \u2192 ');
  svg.appendChild(title); svg.appendChild(line); td.appendChild(svg);
}
function overloadRows(gates) {
  const body = $('overload').tBodies[0]; body.textContent = '';
  if (gates.length === 0) { const r = body.insertRow(); const td = cell(r, 'none'); td.colSpan = 5; td.className = 'empty'; }
  for (const g of gates) {
    const r = body.insertRow(); r.dataset.gate = g.name;
    cell(r, g.name).className = 'key'; cell(r, String(g.limit)).className = 'num'; cell(r, String(g.inFlight)).className = 'num';
    cell(r, g.refused.critical + ' / ' + g.refused.normal + ' / ' + g.refused.sheddable);
    chart(cell(r, ''), g.history);
  }
}
async function refresh() {
  try {
    const minutes = $('minutes').value;
    const [top, blocked, overrides, networks, overload, upstreams] = await Promise.all([
      call('top?minutes=' + minutes), call('blocked'), call('overrides'), call('networks'), call('overload'),
      call('upstreams')]);
    overloadRows(overload.gates);
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
