import { createHash } from 'node:crypto';
import { ADMIN_PAGE_SCRIPT } from './admin-page.script';

const STYLE = `
:root { color-scheme: light; --line: #d8dee4; --muted: #57606a; --accent: #0b5cad; --bad: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; background: #f6f8fa; }
header { display: flex; align-items: baseline; gap: 16px; padding: 14px 24px; background: #1f2937; color: #fff; }
header h1 { margin: 0; font-size: 18px; font-weight: 600; }
header span { color: #cbd5e1; font-size: 12px; }
main { display: grid; grid-template-columns: repeat(auto-fit, minmax(640px, 1fr)); gap: 16px; padding: 16px 24px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
h2 { margin: 0 0 8px; font-size: 15px; display: flex; justify-content: space-between; align-items: center; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: middle; }
th { font-size: 12px; color: var(--muted); font-weight: 600; text-transform: uppercase; letter-spacing: .03em; }
td.key { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; overflow-wrap: anywhere; }
td.limit { color: var(--muted); font-size: 12px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; font-weight: 600; }
td.empty { color: var(--muted); font-style: italic; }
td:last-child { white-space: nowrap; width: 1%; }
h2 label { flex-direction: row; align-items: center; gap: 6px; font-weight: 400; }
button { font: inherit; font-size: 12px; margin-right: 4px; padding: 3px 9px; border: 1px solid var(--line); border-radius: 6px; background: #f6f8fa; cursor: pointer; }
button:hover { border-color: var(--accent); color: var(--accent); }
button[data-action="unblock"], button[data-action="reset"] { color: var(--bad); }
form { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; margin-top: 10px; }
label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 2px; }
input, textarea, select { font: inherit; font-size: 13px; padding: 4px 6px; border: 1px solid var(--line); border-radius: 6px; }
textarea { width: 220px; height: 70px; font-family: ui-monospace, monospace; }
#status { min-height: 20px; margin: 0 24px; padding-top: 10px; color: #1a7f37; font-weight: 600; }
#status.failed { color: var(--bad); }
svg.chart { display: block; width: 160px; height: 32px; }
svg.chart polyline { fill: none; stroke: var(--accent); stroke-width: 1.5; }
`;

/**
 * The admin page: a shell the inline script fills from the API. Its own CSP allows only
 * its inline style, its one script (by hash) and requests to its own origin.
 */
export function renderAdminPage(): { html: string; contentSecurityPolicy: string } {
  const scriptHash = createHash('sha256').update(ADMIN_PAGE_SCRIPT).digest('base64');
  const contentSecurityPolicy = [
    "default-src 'none'",
    "style-src 'unsafe-inline'",
    `script-src 'sha256-${scriptHash}'`,
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Rate limits</title><style>${STYLE}</style></head>
<body>
<header><h1>Rate limits</h1><span id="updated">loading</span></header>
<div id="status" role="status"></div>
<main>
<section><h2>Most denied keys <label>last <select id="minutes"><option value="1">1 minute</option><option value="5" selected>5 minutes</option><option value="15">15 minutes</option></select></label></h2>
<table id="top"><thead><tr><th>Key</th><th>Limit</th><th>Denied</th><th></th></tr></thead><tbody></tbody></table></section>
<section><h2>Blocked now</h2>
<table id="blocked"><thead><tr><th>Key</th><th>Limit</th><th>Left</th><th></th></tr></thead><tbody></tbody></table></section>
<section><h2>Upstreams</h2>
<table id="upstreams"><thead><tr><th>Upstream</th><th>Rate</th><th>Learned rate</th><th>Paused</th><th>Waiting</th></tr></thead><tbody></tbody></table></section>
<section><h2>Live overrides</h2>
<table id="overrides"><thead><tr><th>Limit name</th><th>Options</th><th>Until</th><th></th></tr></thead><tbody></tbody></table>
<form id="override-form"><label>limit name<input id="override-name" required></label>
<label>options (JSON)<input id="override-options" value='{"limit": 100}' required></label>
<label>for (seconds)<input id="override-ttl" type="number" min="1" value="600" required></label><button type="submit">Override</button></form></section>
<section><h2>Overload guard</h2>
<table id="overload"><thead><tr><th>Gate</th><th>Limit</th><th>In flight</th><th>Refused (critical / normal / sheddable)</th><th>Last minute</th></tr></thead><tbody></tbody></table></section>
<section><h2>Networks</h2>
<form id="networks-form"><label>never limited (allow)<textarea id="allow" placeholder="10.0.0.0/8"></textarea></label>
<label>refused (deny)<textarea id="deny" placeholder="203.0.113.0/24"></textarea></label><button type="submit">Save</button></form></section>
</main>
<script>${ADMIN_PAGE_SCRIPT}</script>
</body></html>`;
  return { html, contentSecurityPolicy };
}
