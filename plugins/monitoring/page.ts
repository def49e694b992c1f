import type { MonitoringSummary } from './summary.ts';

/** The page runs no script and loads nothing: charts are inline SVG drawn here. */
export const MONITORING_PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

const STATUS_COLOURS: Record<string, string> = {
  completed: '#2e7d32',
  failed: '#c62828',
  cancelled: '#8d6e63',
  queued: '#90a4ae',
  validating: '#5c6bc0',
  processing: '#1e88e5',
  uploading: '#00897b',
};
const PALETTE = ['#1e88e5', '#e53935', '#43a047', '#fb8c00', '#8e24aa', '#00acc1', '#6d4c41', '#c0ca33'];

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

interface Series {
  name: string;
  colour: string;
}

function legend(series: Series[]): string {
  return `<p class="legend">${series.map((s) => `<span><i style="background:${s.colour}"></i>${esc(s.name)}</span>`).join('')}</p>`;
}

/** Horizontal bars, one row per label, the series side by side within a row. */
function barChart(title: string, rows: { label: string; values: number[] }[], series: Series[], unit = ''): string {
  if (!rows.length) return `<section><h2>${esc(title)}</h2><p class="empty">Nothing in this window.</p></section>`;
  const max = Math.max(1, ...rows.flatMap((r) => r.values));
  const barH = 14, gap = 2, rowH = series.length * (barH + gap) + 10, labelW = 190, plotW = 420;
  const h = rows.length * rowH + 6;
  const parts: string[] = [];
  rows.forEach((r, i) => {
    const y0 = i * rowH + 4;
    parts.push(`<text x="${labelW - 8}" y="${y0 + (series.length * (barH + gap)) / 2 + 4}" text-anchor="end">${esc(r.label)}</text>`);
    r.values.forEach((v, k) => {
      const w = Math.max(v > 0 ? 2 : 0, Math.round((v / max) * plotW));
      const y = y0 + k * (barH + gap);
      parts.push(`<rect x="${labelW}" y="${y}" width="${w}" height="${barH}" fill="${series[k].colour}"><title>${esc(`${r.label} ${series[k].name}: ${v}${unit}`)}</title></rect>`);
      parts.push(`<text x="${labelW + w + 4}" y="${y + barH - 3}" class="v">${v}${unit}</text>`);
    });
  });
  return `<section><h2>${esc(title)}</h2>${series.length > 1 ? legend(series) : ''}<svg role="img" aria-label="${esc(title)}" width="${labelW + plotW + 80}" height="${h}" viewBox="0 0 ${labelW + plotW + 80} ${h}">${parts.join('')}</svg></section>`;
}

/** Stacked columns over the window's hours. */
function columnChart(title: string, hours: string[], stacks: Map<string, Map<string, number>>, series: Series[]): string {
  const totals = hours.map((h) => [...(stacks.get(h)?.values() ?? [])].reduce((a, b) => a + b, 0));
  if (!totals.some((t) => t > 0)) return `<section><h2>${esc(title)}</h2><p class="empty">Nothing in this window.</p></section>`;
  const max = Math.max(1, ...totals);
  const plotH = 160, left = 40, colW = Math.max(6, Math.min(28, Math.floor(640 / hours.length))), w = left + hours.length * colW + 10, h = plotH + 34;
  const parts: string[] = [`<line x1="${left}" y1="${plotH + 4}" x2="${w}" y2="${plotH + 4}" stroke="#999"/>`, `<text x="${left - 4}" y="14" text-anchor="end" class="v">${max}</text>`, `<text x="${left - 4}" y="${plotH + 4}" text-anchor="end" class="v">0</text>`];
  hours.forEach((hour, i) => {
    let y = plotH + 4;
    for (const s of series) {
      const v = stacks.get(hour)?.get(s.name) ?? 0;
      if (!v) continue;
      const bh = Math.max(1, Math.round((v / max) * plotH));
      y -= bh;
      parts.push(`<rect x="${left + i * colW + 1}" y="${y}" width="${colW - 2}" height="${bh}" fill="${s.colour}"><title>${esc(`${hour.slice(0, 13)}h ${s.name}: ${v}`)}</title></rect>`);
    }
    if (i % Math.max(1, Math.ceil(hours.length / 8), Math.ceil(40 / colW)) === 0) parts.push(`<text x="${left + i * colW}" y="${plotH + 22}" class="v">${hour.slice(11, 13)}:00</text>`);
  });
  return `<section><h2>${esc(title)}</h2>${legend(series)}<svg role="img" aria-label="${esc(title)}" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${parts.join('')}</svg></section>`;
}

/** The UTC hours of the window, oldest first (ISO strings as the store returns them). */
function windowHours(s: MonitoringSummary): string[] {
  const end = Math.floor(new Date(s.generatedAt).getTime() / 3_600_000);
  return Array.from({ length: s.windowHours }, (_, i) => new Date((end - s.windowHours + 1 + i) * 3_600_000).toISOString());
}

function stacked<T extends { hour: string; count: number }>(rows: T[], seriesOf: (r: T) => string): Map<string, Map<string, number>> {
  const m = new Map<string, Map<string, number>>();
  for (const r of rows) {
    const hour = new Date(r.hour).toISOString();
    const inner = m.get(hour) ?? new Map<string, number>();
    inner.set(seriesOf(r), (inner.get(seriesOf(r)) ?? 0) + r.count);
    m.set(hour, inner);
  }
  return m;
}

/** The operator's dashboard: the summary drawn as charts, refreshed every minute. */
export function renderMonitoringPage(s: MonitoringSummary): string {
  const hours = windowHours(s);
  const statuses = [...new Set([...Object.keys(STATUS_COLOURS), ...Object.keys(s.jobs.byStatus)])].filter((st) => s.jobs.byStatus[st]);
  const statusSeries = statuses.map((st, i) => ({ name: st, colour: STATUS_COLOURS[st] ?? PALETTE[i % PALETTE.length] }));
  const kinds = [...new Set(s.jobs.byKind.map((k) => k.kind))].sort();
  const categories = s.rateLimitRefusals.byCategory.map((c, i) => ({ name: c.category, colour: PALETTE[i % PALETTE.length] }));
  const w = s.webhooks;
  const charts = [
    barChart('Queue depth per queue (now)', s.queues.map((q) => ({ label: q.queue, values: [q.waiting, q.running, q.failed] })), [
      { name: 'waiting', colour: '#90a4ae' },
      { name: 'running', colour: '#1e88e5' },
      { name: 'failed (attempts used up)', colour: '#c62828' },
    ]),
    columnChart(`Jobs submitted per hour, by status (last ${s.windowHours} h)`, hours, stacked(s.jobs.hourly, (j) => j.status), statusSeries),
    barChart('Jobs per kind and status', kinds.map((k) => ({ label: k, values: statusSeries.map((st) => s.jobs.byKind.find((b) => b.kind === k && b.status === st.name)?.count ?? 0) })), statusSeries),
    barChart('Stage duration p50 / p95 (ms)', s.stages.map((st) => ({ label: `${st.stage} (${st.runs})`, values: [st.p50Ms, st.p95Ms] })), [
      { name: 'p50', colour: '#43a047' },
      { name: 'p95', colour: '#fb8c00' },
    ]),
    barChart('Failure reasons', s.failures.map((f) => ({ label: `${f.reason} · ${f.kind}`, values: [f.count] })), [{ name: 'failed jobs', colour: '#c62828' }]),
    barChart(`Webhook deliveries (success ${w.successRate === null ? 'n/a' : `${Math.round(w.successRate * 1000) / 10} %`}, ${w.attempts} attempts)`, [
      { label: 'delivered', values: [w.delivered] },
      { label: 'failed', values: [w.failed] },
      { label: 'pending', values: [w.pending] },
    ], [{ name: 'deliveries', colour: '#00897b' }]),
    barChart(`Rate-limit refusals (429), ${s.rateLimitRefusals.total} in the window`, s.rateLimitRefusals.byCategory.map((c) => ({ label: c.category, values: [c.count] })), [{ name: 'refusals', colour: '#8e24aa' }]),
    columnChart('Rate-limit refusals per hour', hours, stacked(s.rateLimitRefusals.hourly, (r) => r.category), categories),
  ];
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta http-equiv="refresh" content="60">
<title>Fitroom monitoring</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#222}
header{background:#263238;color:#fff;padding:10px 18px}header h1{font-size:18px;margin:0}header p{margin:2px 0 0;color:#cfd8dc;font-size:12px}
main{display:grid;grid-template-columns:repeat(auto-fill,minmax(700px,1fr));gap:12px;padding:12px}
section{background:#fff;border:1px solid #dde1e6;border-radius:6px;padding:10px 14px;overflow-x:auto}
h2{font-size:14px;margin:0 0 6px}svg text{font-size:11px;fill:#333}svg text.v{fill:#666}
.legend span{margin-right:12px;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
.empty{color:#888}
</style></head>
<body>
<header><h1>Fitroom monitoring</h1><p>Last ${s.windowHours} hours (since ${esc(s.since)}), generated ${esc(s.generatedAt)}; ${s.jobs.total} jobs. JSON: <a style="color:#80deea" href="/monitoring/summary?hours=${s.windowHours}">/monitoring/summary</a>, Prometheus: <a style="color:#80deea" href="/monitoring/metrics">/monitoring/metrics</a></p></header>
<main>
${charts.join('\n')}
</main>
</body>
</html>`;
}
