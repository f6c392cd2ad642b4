/**
 * The `platen` command line (DESIGN §3).
 *   render TEMPLATE.json [DATA.json] -o OUT.pdf [--json]   render without server or database
 *   serve                                                  the HTTP service (issue: Service v1)
 * With --json a command prints exactly one JSON object on stdout; errors go to stderr, exit 1.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { renderPdf, RenderError } from '../engine/index.ts';

class UsageError extends Error {}

function readJson(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${what} ${path} is not valid JSON: ${(e as Error).message}`);
  }
}

async function render(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { output: { type: 'string', short: 'o' }, json: { type: 'boolean' }, 'pdf-variant': { type: 'string' } },
  });
  const [templatePath, dataPath] = positionals;
  if (!templatePath || !values.output) throw new UsageError('usage: render TEMPLATE.json [DATA.json] -o OUT.pdf [--json]');
  if (values['pdf-variant']) throw new UsageError('--pdf-variant is not supported yet (PDF/A output is a separate issue)');
  const definition = readJson(templatePath, 'template');
  const data = dataPath ? readJson(dataPath, 'data') : {};
  const started = performance.now();
  const result = await renderPdf(definition, data);
  writeFileSync(values.output, result.pdf);
  const ms = Math.round(performance.now() - started);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ output: values.output, pages: result.pages, bytes: result.pdf.length, ms })}\n`);
  } else {
    process.stdout.write(`${values.output}: ${result.pages} page(s), ${result.pdf.length} bytes in ${ms} ms\n`);
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'render':
      return render(rest);
    case 'serve':
      throw new UsageError('serve: the HTTP service is not built yet (see the open issue "Service v1"); use `render` meanwhile');
    default:
      throw new UsageError('usage: platen <render|serve> ...\n  render TEMPLATE.json [DATA.json] -o OUT.pdf [--json]');
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof RenderError) {
    process.stderr.write(`${e.code}: ${e.message}\n`);
    for (const issue of e.issues.slice(1, 20)) process.stderr.write(`  ${issue.path || '(root)'}: ${issue.message}\n`);
  } else if (e instanceof UsageError) {
    process.stderr.write(`${e.message}\n`);
  } else {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  }
  process.exit(1);
});
