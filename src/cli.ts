/**
 * The `platen` command line (DESIGN §3); USAGE below lists every command and option.
 * With --json a command prints exactly one JSON object on stdout; errors go to stderr, exit 1.
 */
import { mkdirSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BUNDLED_FONT_DIR, FontLibrary, imageSources, PDF_VARIANTS, renderImage, renderPdf, RenderError, type ImageFormat, type PdfVariant } from '../engine/index.ts';
import { ImageFetchError, ImageFetcher } from './services/image-fetch.ts';
import { openConfiguredDatabase, type Db } from '../db/open.ts';
import { ConfigError, loadConfig, ROLES } from './config.ts';
import { writeDemoRequest } from './seed.ts';
import { startServer } from './server.ts';
import { grantCredits } from './services/credits.ts';
import { createApiKey, revokeApiKeys } from './services/keys.ts';
import { createTeam, getTeam } from './services/teams.ts';

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

/** Write the output file, its folder created. @throws UsageError naming the file and the system's error code */
function writeOutput(path: string, bytes: Uint8Array): void {
  try {
    mkdirSync(dirname(resolve(path)), { recursive: true });
    writeFileSync(path, bytes);
  } catch (e) {
    throw new UsageError(`cannot write ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

interface RenderJob {
  templatePath: string;
  dataPath: string | undefined;
  output: string;
  variant: PdfVariant | undefined;
  fonts: FontLibrary | undefined;
  json: boolean | undefined;
  /** --pdf-ua: claim and meet PDF/UA-1. */
  pdfUa?: boolean;
  /** --no-tags: an untagged PDF (the template's "tagged": false). */
  noTags?: boolean;
  /** Image output (an output ending in .png, .jpg or .jpeg, or --format png|jpeg): one page as an image (--page, --scale). */
  image?: { format: ImageFormat; page: number; scale: number };
}

/** Read the files, render, write the PDF and print one line. @throws UsageError, RenderError */
async function renderOnce(job: RenderJob): Promise<void> {
  const read = readJson(job.templatePath, 'template');
  const definition = job.noTags && read && typeof read === 'object' ? { ...(read as object), tagged: false } : read;
  const data = job.dataPath ? readJson(job.dataPath, 'data') : {};
  const started = performance.now();
  const images = await fetchImages(definition, data);
  if (job.image) {
    const picture = await renderImage(definition, data, { ...job.image, fonts: job.fonts, images });
    for (const w of picture.warnings) process.stderr.write(`warning: ${w.code} at ${w.path || '(root)'}: ${w.message}\n`);
    writeOutput(job.output, picture.image);
    const ms = Math.round(performance.now() - started);
    const summary = { output: job.output, pages: picture.pages, page: job.image.page, width: picture.width, height: picture.height, bytes: picture.image.length, ms };
    process.stdout.write(job.json ? `${JSON.stringify(summary)}\n` : `${job.output}: page ${job.image.page} of ${picture.pages}, ${picture.width} x ${picture.height} pixels, ${picture.image.length} bytes in ${ms} ms\n`);
    return;
  }
  const result = await renderPdf(definition, data, { pdfVariant: job.variant, fonts: job.fonts, pdfUa: job.pdfUa, images });
  for (const w of result.warnings) process.stderr.write(`warning: ${w.code} at ${w.path || "(root)"}: ${w.message}\n`);
  writeOutput(job.output, result.pdf);
  const ms = Math.round(performance.now() - started);
  if (job.json) {
    process.stdout.write(`${JSON.stringify({ output: job.output, pages: result.pages, bytes: result.pdf.length, ms })}\n`);
  } else {
    process.stdout.write(`${job.output}: ${result.pages} page(s), ${result.pdf.length} bytes in ${ms} ms\n`);
  }
}

/**
 * The https:// images of a render, fetched as the service fetches them (public addresses only,
 * PLATEN_IMAGE_ALLOW_PRIVATE, PLATEN_IMAGE_FETCH_MAX_BYTES, PLATEN_IMAGE_FETCH_TIMEOUT_MS and
 * PLATEN_IMAGE_FETCH_CA_FILE apply), or undefined when it has none. `asset:` sources need the
 * service. @throws UsageError naming the URL and the image's path when one cannot be fetched.
 */
async function fetchImages(definition: unknown, data: unknown): Promise<Map<string, Uint8Array> | undefined> {
  let urls;
  try {
    urls = imageSources(definition, data).filter((u) => /^https?:/i.test(u.src));
  } catch {
    return undefined; // the render says what is wrong with the definition
  }
  if (urls.length === 0) return undefined;
  const env = process.env;
  const number = (name: string, fallback: number) => (env[name] && Number.isInteger(Number(env[name])) ? Number(env[name]) : fallback);
  const caFile = env.PLATEN_IMAGE_FETCH_CA_FILE;
  const fetcher = new ImageFetcher({
    allowPrivate: ['true', '1', 'yes'].includes(env.PLATEN_IMAGE_ALLOW_PRIVATE ?? ''),
    maxBytes: number('PLATEN_IMAGE_FETCH_MAX_BYTES', 10 * 1024 * 1024),
    timeoutMs: number('PLATEN_IMAGE_FETCH_TIMEOUT_MS', 10_000),
    cacheBytes: 0,
    ca: caFile ? readFileSync(caFile, 'utf8') : undefined,
  });
  const images = new Map<string, Uint8Array>();
  for (const { src, path } of urls) {
    try {
      images.set(src, await fetcher.fetch(src));
    } catch (e) {
      if (e instanceof ImageFetchError) throw new UsageError(`IMAGE_FETCH_FAILED: ${path}: image ${src} could not be fetched: ${e.message}`);
      throw e;
    }
  }
  return images;
}

/** Quiet time after a change of a watched file before rendering again (editors write in steps), ms. */
const WATCH_SETTLE_MS = 100;

/**
 * Render, then again whenever the template or data file changes, until SIGINT or SIGTERM (exit
 * 0). The files' folders are watched, so an editor that saves by replacing the file is followed.
 * A fault (invalid JSON, a template error) is printed to stderr and the watch goes on.
 */
async function watchAndRender(job: RenderJob): Promise<void> {
  const files = [job.templatePath, job.dataPath].filter((f): f is string => f !== undefined).map((f) => resolve(f));
  const attempt = async () => {
    try {
      await renderOnce(job);
    } catch (e) {
      reportError(e);
    }
  };
  await attempt();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();
  const watchers = [...new Set(files.map((f) => dirname(f)))].map((dir) =>
    watch(dir, (_event, name) => {
      if (name === null || !files.includes(join(dir, name.toString()))) return;
      clearTimeout(timer);
      timer = setTimeout(() => (running = running.then(attempt)), WATCH_SETTLE_MS);
    }),
  );
  process.stderr.write(`watching ${files.join(' and ')}; Ctrl+C stops\n`);
  await new Promise<void>((done) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => done());
  });
  clearTimeout(timer);
  for (const w of watchers) w.close();
  await running;
}

async function render(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      json: { type: 'boolean' },
      'pdf-variant': { type: 'string' },
      'pdf-ua': { type: 'boolean' },
      'no-tags': { type: 'boolean' },
      'font-dir': { type: 'string', multiple: true },
      watch: { type: 'boolean', short: 'w' },
      page: { type: 'string' },
      scale: { type: 'string' },
      format: { type: 'string' },
    },
  });
  const [templatePath, dataPath] = positionals;
  if (!templatePath || !values.output) throw new UsageError('usage: render TEMPLATE.json [DATA.json] -o OUT.pdf|.png|.jpg [--format pdf|png|jpeg] [--pdf-variant pdf/a-2b] [--pdf-ua] [--no-tags] [--font-dir DIR]... [--watch] [--json] (platen help for more)');
  const variant = values['pdf-variant'];
  if (variant !== undefined && !(PDF_VARIANTS as readonly string[]).includes(variant)) {
    throw new UsageError(`--pdf-variant must be one of ${PDF_VARIANTS.join(', ')}`);
  }
  const fontDirs = values['font-dir'] ?? [];
  for (const dir of fontDirs) {
    let folder: boolean;
    try {
      folder = statSync(dir).isDirectory();
    } catch (e) {
      throw new UsageError(`--font-dir ${dir} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (!folder) throw new UsageError(`--font-dir ${dir} is not a folder`);
  }
  const fonts = fontDirs.length > 0 ? new FontLibrary([BUNDLED_FONT_DIR, ...fontDirs]) : undefined;
  if (values['pdf-ua'] && values['no-tags']) throw new UsageError('--pdf-ua needs a tagged PDF: leave out --no-tags');
  if (values['pdf-ua'] && variant === 'pdf/a-1b') throw new UsageError('--pdf-ua cannot be combined with --pdf-variant pdf/a-1b (PDF/A-1 is based on PDF 1.4); use pdf/a-2b or pdf/a-3b');
  const job: RenderJob = { templatePath, dataPath, output: values.output, variant: variant as PdfVariant | undefined, fonts, json: values.json, pdfUa: values['pdf-ua'], noTags: values['no-tags'] };
  const format = outputFormat(values.output, values.format);
  if (format !== 'pdf') {
    if (variant !== undefined || values['pdf-ua']) throw new UsageError('--pdf-variant and --pdf-ua are for PDF output, not an image (.png, .jpg)');
    const page = values.page === undefined ? 1 : Number(values.page);
    const scale = values.scale === undefined ? 2 : Number(values.scale);
    if (!Number.isInteger(page) || page < 1) throw new UsageError('--page must be a page number from 1');
    if (!(scale >= 0.25 && scale <= 8)) throw new UsageError('--scale must be 0.25 to 8 (pixels per point; 1 = 72 dpi)');
    job.image = { format, page, scale };
  } else if (values.page !== undefined || values.scale !== undefined) {
    throw new UsageError('--page and --scale are for image output: name the output .png or .jpg (or --format png)');
  }
  if (values.watch) return watchAndRender(job);
  return renderOnce(job);
}

/** What `render` writes, by the output's extension (ignoring case). */
const OUTPUT_EXTENSIONS: Record<string, 'pdf' | ImageFormat> = { '.pdf': 'pdf', '.png': 'png', '.jpg': 'jpeg', '.jpeg': 'jpeg' };
const FORMATS: Record<string, 'pdf' | ImageFormat> = { pdf: 'pdf', png: 'png', jpeg: 'jpeg', jpg: 'jpeg' };

/**
 * The format `render` writes to `output`: `--format` when given, else the output's extension; a
 * name without one is a PDF.
 * @throws UsageError for a --format or an extension the command line cannot write (a PDF into
 *   out.gif would be a surprise), naming it and the supported ones.
 */
function outputFormat(output: string, flag: string | undefined): 'pdf' | ImageFormat {
  if (flag !== undefined) {
    const format = FORMATS[flag.toLowerCase()];
    if (!format) throw new UsageError(`--format ${flag} cannot be written: use pdf, png, jpeg (or jpg)`);
    return format;
  }
  const ext = extname(output).toLowerCase();
  if (ext === '') return 'pdf';
  const format = OUTPUT_EXTENSIONS[ext];
  if (!format) throw new UsageError(`cannot write ${extname(output)} output (${output}): render writes ${Object.keys(OUTPUT_EXTENSIONS).join(', ')}; name the output so, or say --format pdf|png|jpeg`);
  return format;
}

const USAGE = `usage: platen <command> [options]

commands:
  serve [--role api|worker|all]          run the service (configuration: environment variables, see README)
      --role ROLE                        all (default): HTTP API and job worker in one process;
                                         api: HTTP API only; worker: render jobs and webhooks, /healthz and
                                         /readyz only (api and worker need PLATEN_DATABASE_URL; also PLATEN_ROLE)
                                         SIGTERM or SIGINT stops it gracefully (PLATEN_SHUTDOWN_TIMEOUT_MS)
  render TEMPLATE.json [DATA.json] -o OUT.pdf [options]
                                         render a template without server or database (https:// image
                                         URLs are fetched as the service does: PLATEN_IMAGE_* variables)
      -o, --output FILE                  where to write the PDF (its folder is created); a name ending in .png, .jpg
                                         or .jpeg writes one page as that image instead; any other extension is
                                         refused (a name without one is a PDF)
      --format pdf|png|jpeg              the output's format whatever its name (wins over the extension)
      --page N, --scale S                image output: the page (default 1) and pixels per point (default 2; 1 = 72 dpi)
      --pdf-variant VARIANT              PDF/A output: ${PDF_VARIANTS.join(', ')}
      --pdf-ua                           PDF/UA-1 (accessible PDF): needs metadata.title, metadata.language and alt on
                                         every image and code; combines with pdf/a-2b and pdf/a-3b
      --no-tags                          an untagged PDF (smallest file; as "tagged": false in the template)
      --font-dir DIR                     a folder of extra fonts used as fallbacks (repeatable)
      -w, --watch                        render again whenever the template or data file changes (until Ctrl+C);
                                         faults are printed and the watch goes on; with --json one object per render
      --json                             print {output, pages, bytes, ms} as one JSON object
  teams create --name NAME --credits N   a team and its first API key (shown once)
  keys create --team TEAM_ID             another API key for a team (shown once)
  keys revoke KEY_PREFIX                 revoke the keys that start with KEY_PREFIX (at least 8 characters)
  credits add --team TEAM_ID --amount N  grant N credits to a team
  help                                   this text (also --help, -h, and after any command: render --help)

Every command but serve takes --json: exactly one JSON object on stdout. Errors go to stderr with
exit status 1.`;

/** Run `work` on the configured database (PLATEN_DATABASE_URL, else the SQLite file), then close it. */
async function withDatabase<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const db = await openConfiguredDatabase(loadConfig());
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** Print `value` as one JSON object with --json, else as `text`. */
function print(json: boolean | undefined, value: object, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

function wholeNumber(value: string | undefined, flag: string, min: number): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n < min) throw new UsageError(`${flag} must be a whole number >= ${min}`);
  return n;
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { role: { type: 'string' } } });
  const env = { ...process.env };
  if (values.role !== undefined) {
    if (!(ROLES as readonly string[]).includes(values.role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
    env.PLATEN_ROLE = values.role;
  }
  const server = await startServer(loadConfig(env));
  if (server.seeded) {
    const { apiKey, teamId, templates } = server.seeded;
    process.stdout.write(
      [
        '',
        'Seeded a demo team with 100 credits. Its API key is shown only this once:',
        `  team:    ${teamId}`,
        `  API key: ${apiKey}`,
        '  templates:',
        ...templates.map((t) => `    ${t.name.padEnd(10)} ${t.id}`),
        '',
        'Render the demo invoice with its sample data (the request body is written to the file named):',
        `  curl -s -X POST ${server.services.config.publicUrl}/v1/pdf/create -H 'x-api-key: ${apiKey}' \\`,
        `    -H 'content-type: application/json' --data @${writeDemoRequest(server.services.config.dataDir, server.seeded)}`,
        '',
      ].join('\n'),
    );
  }
  // Graceful: readiness fails, the listener closes, running jobs finish or go back to the queue.
  // A second signal stops at once.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`${signal} again: stopping now\n`);
      process.exit(1);
    }
    stopping = true;
    server.services.log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        reportError(err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function teams(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { name: { type: 'string' }, credits: { type: 'string' }, json: { type: 'boolean' } } });
  if (positionals[0] !== 'create' || !values.name) throw new UsageError('usage: teams create --name NAME --credits N [--json]');
  const credits = wholeNumber(values.credits ?? '0', '--credits', 0);
  const { teamId, apiKey } = await withDatabase((db) => createTeam(db, values.name!, credits));
  print(values.json, { team_id: teamId, api_key: apiKey }, `team ${teamId} created with ${credits} credits\nAPI key (shown once): ${apiKey}`);
}

async function keys(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { team: { type: 'string' }, json: { type: 'boolean' } } });
  const team = values.team;
  if (positionals[0] === 'create' && team) {
    const { apiKey } = await withDatabase(async (db) => {
      if (!(await getTeam(db, team))) throw new UsageError(`no team ${team}`);
      return createApiKey(db, team);
    });
    return print(values.json, { api_key: apiKey }, `API key (shown once): ${apiKey}`);
  }
  const prefix = positionals[1];
  if (positionals[0] === 'revoke' && prefix) {
    let revoked: number;
    try {
      revoked = await withDatabase((db) => revokeApiKeys(db, prefix));
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    if (revoked === 0) throw new UsageError(`no active key starts with ${positionals[1]}`);
    return print(values.json, { revoked }, `${revoked} key(s) revoked`);
  }
  throw new UsageError('usage: keys create --team TEAM_ID [--json] | keys revoke KEY_PREFIX [--json]');
}

async function credits(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { team: { type: 'string' }, amount: { type: 'string' }, json: { type: 'boolean' } } });
  if (positionals[0] !== 'add' || !values.team) throw new UsageError('usage: credits add --team TEAM_ID --amount N [--json]');
  const amount = wholeNumber(values.amount, '--amount', 1);
  const team = values.team;
  const balance = await withDatabase(async (db) => {
    if (!(await getTeam(db, team))) throw new UsageError(`no team ${team}`);
    return grantCredits(db, team, amount);
  });
  print(values.json, { team_id: values.team, credits: balance }, `team ${values.team} now has ${balance} credits`);
}

/** The commands `--help` after which prints the usage. */
const COMMANDS: ReadonlySet<string> = new Set(['serve', 'render', 'teams', 'keys', 'credits']);
/** Options that take a value: a `--help` right after one is that value. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set(['-o', '--output', '--format', '--page', '--scale', '--pdf-variant', '--font-dir', '--role', '--name', '--credits', '--team', '--amount']);

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  // `platen render --help` asks for help, not for a render with an unknown option (but `-o --help`
  // names a file, and an unknown command stays a usage error).
  if (COMMANDS.has(command ?? '') && rest.some((a, i) => (a === '--help' || a === '-h') && !(i > 0 && VALUE_OPTIONS.has(rest[i - 1])))) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  switch (command) {
    case 'serve':
      return serve(rest);
    case 'render':
      return render(rest);
    case 'teams':
      return teams(rest);
    case 'keys':
      return keys(rest);
    case 'credits':
      return credits(rest);
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    default:
      throw new UsageError(USAGE);
  }
}

/** node:util parseArgs' complaint about an unknown option or a missing value: a usage error, not a crash. */
function isArgumentError(e: unknown): e is Error {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && (e as NodeJS.ErrnoException).code!.startsWith('ERR_PARSE_ARGS_');
}

/** An error as the command line prints it on stderr. */
function reportError(e: unknown): void {
  if (e instanceof RenderError) {
    process.stderr.write(`${e.code}: ${e.message}\n`);
    for (const issue of e.issues.slice(1, 20)) process.stderr.write(`  ${issue.path || '(root)'}: ${issue.message}\n`);
  } else if (e instanceof UsageError || e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
  } else if (isArgumentError(e)) {
    process.stderr.write(`${e.message.split(/\.\s/)[0]}; platen help lists the options\n`);
  } else {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  reportError(e);
  process.exit(1);
});
