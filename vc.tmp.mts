import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';
import { variedInvoiceData } from './bench/varied-invoice.ts';
const [url, key, tpl, conn, secs, mode] = process.argv.slice(2);
const data = JSON.parse(readFileSync('examples/invoice/data.json', 'utf8'));
let serial = 0;
const body = () => JSON.stringify({ template_id: tpl, export_type: 'binary', data: mode === 'varied' ? variedInvoiceData(data, ++serial) : data });
const r = await autocannon({ url, method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, connections: Number(conn), duration: Number(secs), requests: [{ setupRequest: (req: any) => ({ ...req, body: body() }) }] } as any);
console.log(mode, 'req/s', (r.requests.total / r.duration).toFixed(1), 'p99', r.latency.p99, 'non2xx', r.non2xx);
