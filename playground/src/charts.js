// Charts as hand-written SVG strings: three line charts do not justify a
// charting library in a page that must stay light and load nothing from a
// CDN (the page's whole JS, wasm glue included, is a few tens of KB).
(function (root) {
  'use strict';
  const COLORS = ['#0072b2', '#d55e00', '#009e73', '#cc79a7', '#e69f00', '#56b4e9', '#000000'];
  const W = 640, H = 260, L = 52, R = 12, T = 24, B = 34;
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

  function ticks(max, n = 5) {
    const step = Math.pow(10, Math.floor(Math.log10(max / n || 1)));
    const m = [1, 2, 5, 10].find((k) => (max / (k * step)) <= n) * step;
    const out = [];
    for (let v = 0; v <= max + 1e-9; v += m) out.push(v);
    return out;
  }

  /**
   * lines: [{name, points: [[x, y]], color?, dash?}]; returns an SVG string.
   * The element gets data-series (the number of lines) and data-points (their total), for tests.
   */
  function lineChart({ id, title, xLabel, yLabel, xMax, yMax, lines, yFormat = (v) => String(v) }) {
    const sx = (x) => L + (x / (xMax || 1)) * (W - L - R);
    const sy = (y) => H - B - (y / (yMax || 1)) * (H - T - B);
    const parts = [`<svg xmlns="http://www.w3.org/2000/svg" id="${id}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" data-series="${lines.length}" data-points="${lines.reduce((a, l) => a + l.points.length, 0)}" role="img" aria-label="${esc(title)}">`];
    parts.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
    parts.push(`<text x="${W / 2}" y="15" text-anchor="middle" font-size="13" font-family="sans-serif">${esc(title)}</text>`);
    for (const v of ticks(yMax)) {
      parts.push(`<line x1="${L}" x2="${W - R}" y1="${sy(v)}" y2="${sy(v)}" stroke="#eee"/>`);
      parts.push(`<text x="${L - 4}" y="${sy(v) + 4}" text-anchor="end" font-size="10" font-family="sans-serif">${esc(yFormat(v))}</text>`);
    }
    for (const v of ticks(xMax, 8)) {
      parts.push(`<text x="${sx(v)}" y="${H - B + 14}" text-anchor="middle" font-size="10" font-family="sans-serif">${esc(v)}</text>`);
    }
    parts.push(`<line x1="${L}" x2="${W - R}" y1="${H - B}" y2="${H - B}" stroke="#444"/><line x1="${L}" x2="${L}" y1="${T}" y2="${H - B}" stroke="#444"/>`);
    parts.push(`<text x="${(L + W - R) / 2}" y="${H - 4}" text-anchor="middle" font-size="11" font-family="sans-serif">${esc(xLabel)}</text>`);
    parts.push(`<text transform="translate(12 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle" font-size="11" font-family="sans-serif">${esc(yLabel)}</text>`);
    lines.forEach((l, i) => {
      const color = l.color ?? COLORS[i % COLORS.length];
      const d = l.points.map(([x, y], k) => `${k ? 'L' : 'M'}${sx(x).toFixed(1)},${sy(Math.min(y, yMax)).toFixed(1)}`).join('');
      parts.push(`<path class="series" data-name="${esc(l.name)}" d="${d}" fill="none" stroke="${color}" stroke-width="${l.width ?? 1.5}"${l.dash ? ' stroke-dasharray="5 3"' : ''}/>`);
      if (l.dots) for (const [x, y] of l.points) parts.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.5" fill="${color}"/>`);
      parts.push(`<rect x="${L + 8 + i * 150}" y="${T + 2}" width="12" height="3" fill="${color}"/><text x="${L + 24 + i * 150}" y="${T + 7}" font-size="10" font-family="sans-serif">${esc(l.name)}</text>`);
    });
    parts.push('</svg>');
    return parts.join('');
  }

  root.PlaygroundCharts = { lineChart, COLORS };
})(globalThis);
