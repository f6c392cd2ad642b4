/** Unauthenticated routes: GET /healthz, GET /readyz, GET /openapi.json, GET /docs. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { withExamples } from '../openapi/examples.ts';
import type { AppEnv, Services } from '../app.ts';
import { healthReport, type QueueProbe } from '../services/health.ts';

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Platen API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:920px;margin:2rem auto;padding:0 1rem;color:#1f2933}
h1{color:#1f4e79}h2{margin-top:2rem;border-bottom:1px solid #d9e2ec}code,pre{background:#f3f6f9;padding:.1em .3em;border-radius:3px}
.m{display:inline-block;min-width:4.5em;font-weight:700;color:#1f4e79}table{border-collapse:collapse}td{padding:.15em .6em .15em 0;vertical-align:top}</style></head>
<body><h1>Platen API</h1><p>Every /v1 endpoint needs the <code>x-api-key</code> header. Machine-readable spec: <a href="/openapi.json">/openapi.json</a>.</p>
<div id="ops">Loading…</div>
<script>
fetch('/openapi.json').then(r => r.json()).then(spec => {
  const esc = s => String(s ?? '').replace(/[&<>"]/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c]));
  const ref = s => s && s.$ref ? spec.components.schemas[s.$ref.split('/').pop()] : s;
  let html = '';
  for (const [path, ops] of Object.entries(spec.paths)) for (const [method, op] of Object.entries(ops)) {
    html += '<h2><span class="m">' + method.toUpperCase() + '</span> <code>' + esc(path) + '</code></h2><p>' + esc(op.summary) + '</p>';
    const body = ref(op.requestBody?.content?.['application/json']?.schema);
    if (body?.properties) { html += '<h3>Body</h3><table>'; for (const [k, v] of Object.entries(body.properties)) html += '<tr><td><code>' + esc(k) + '</code></td><td>' + esc(v.type ?? '') + ((body.required||[]).includes(k) ? ' (required)' : '') + '</td><td>' + esc(v.description ?? '') + '</td></tr>'; html += '</table>'; }
    for (const p of op.parameters ?? []) html += '<div><code>' + esc(p.in) + ' ' + esc(p.name) + '</code> ' + esc(p.schema?.type) + '</div>';
    html += '<h3>Responses</h3><table>'; for (const [code, r] of Object.entries(op.responses)) html += '<tr><td>' + esc(code) + '</td><td>' + esc(r.description) + '</td></tr>'; html += '</table>';
  }
  document.getElementById('ops').innerHTML = html;
});
</script></body></html>`;

type HealthServices = Pick<Services, 'db' | 'config' | 'lifecycle'> & { files?: Pick<Services['files'], 'blobs'>; runner?: Partial<QueueProbe> };

/** GET /healthz and GET /readyz (every role serves them, a worker nothing else). */
export function healthRoutes(app: OpenAPIHono<AppEnv>, s: HealthServices): void {
  // Liveness with a report: 200 while the process serves, whatever its dependencies say.
  // The job queue is checked when it is a dependency of its own (cluster mode's pg-boss).
  const queue = s.runner?.ping && s.runner.kind ? (s.runner as QueueProbe) : undefined;
  app.get('/healthz', async (c) => c.json(await healthReport(s.db, s.config.healthTimeoutMs, s.files?.blobs, queue), 200));
  // Readiness: 503 while a dependency does not answer, so a load balancer sends no traffic here;
  // 503 {status: draining} at once when a graceful shutdown began (nothing is asked then).
  app.get('/readyz', async (c) => {
    if (s.lifecycle?.draining) return c.json({ status: 'draining' as const, checks: {} }, 503);
    const report = await healthReport(s.db, s.config.healthTimeoutMs, s.files?.blobs, queue);
    return c.json(report, report.status === 'ok' ? 200 : 503);
  });
}

export function systemRoutes(app: OpenAPIHono<AppEnv>, s: HealthServices): void {
  healthRoutes(app, s);
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'x-api-key' });
  // Generated from the routes' schemas on first request (every route is registered by then), with
  // each operation's request and response examples added.
  let document: unknown;
  app.get('/openapi.json', (c) => {
    document ??= withExamples(
      app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: { title: 'Platen API', version: '1.0.0', description: 'PDF generation from JSON templates and data.' },
      }),
    );
    return c.json(document as object);
  });
  app.get('/docs', (c) => c.html(DOCS_HTML));
}
