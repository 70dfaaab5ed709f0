'use strict';
// A tiny horizontal bar chart as SVG text, no dependencies.

function escape(text) {
  return String(text).replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c],
  );
}

/**
 * bars: [{ label, value, note?, highlight? }]; value drawn to scale, `note` printed after it.
 */
function barChart({ title, subtitle = '', unit = '', bars, width = 760 }) {
  const labelWidth = 330;
  const barHeight = 26;
  const gap = 12;
  const top = subtitle ? 64 : 48;
  const plotWidth = width - labelWidth - 150;
  const max = Math.max(...bars.map((bar) => bar.value), 1);
  const height = top + bars.length * (barHeight + gap) + 16;
  const font = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';
  const rows = bars.map((bar, i) => {
    const y = top + i * (barHeight + gap);
    const w = Math.max(1, Math.round((bar.value / max) * plotWidth));
    const fill = bar.highlight ? '#2f6fdb' : '#9aa7b8';
    const value = `${Math.round(bar.value).toLocaleString('en-US')}${unit ? ' ' + unit : ''}`;
    return [
      `<text x="${labelWidth - 10}" y="${y + barHeight / 2 + 5}" text-anchor="end" font-size="13" ${font} fill="#222">${escape(bar.label)}</text>`,
      `<rect x="${labelWidth}" y="${y}" width="${w}" height="${barHeight}" rx="3" fill="${fill}"/>`,
      `<text x="${labelWidth + w + 8}" y="${y + barHeight / 2 + 5}" font-size="13" ${font} fill="#222">${escape(value)}${bar.note ? `<tspan fill="#666"> ${escape(bar.note)}</tspan>` : ''}</text>`,
    ].join('\n  ');
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `  <rect width="100%" height="100%" fill="#ffffff"/>`,
    `  <text x="16" y="28" font-size="17" font-weight="bold" ${font} fill="#111">${escape(title)}</text>`,
    subtitle
      ? `  <text x="16" y="48" font-size="12" ${font} fill="#555">${escape(subtitle)}</text>`
      : '',
    `  ${rows.join('\n  ')}`,
    '</svg>',
    '',
  ]
    .filter(Boolean)
    .join('\n');
}

module.exports = { barChart };
