/**
 * Rendering in tests: a fixed `$now`, the PDF read back, and the RenderError of a failing render.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderPdf, RenderError, type Limits, type RenderWarning } from '../../engine/index.ts';
import { readPdf, type ReadPdf } from './pdf.ts';

/** `$now` of every test render. */
export const NOW = new Date('2026-01-15T12:00:00Z');

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Rendered {
  pdf: Buffer;
  pages: number;
  doc: ReadPdf;
  warnings: RenderWarning[];
}

/** Render with `now` = NOW and read the PDF back. */
export async function render(definition: unknown, data: unknown = {}, limits?: Partial<Limits>): Promise<Rendered> {
  const r = await renderPdf(definition, data, { now: NOW, limits });
  const doc = await readPdf(r.pdf);
  return { pdf: r.pdf, pages: r.pages, doc, warnings: r.warnings };
}

/** The RenderError a render fails with (fails the test if it succeeds or throws something else). */
export async function renderError(definition: unknown, data: unknown = {}, limits?: Partial<Limits>): Promise<RenderError> {
  try {
    await renderPdf(definition, data, { now: NOW, limits });
  } catch (e) {
    assert.ok(e instanceof RenderError, `expected a RenderError, got ${(e as Error)?.stack ?? String(e)}`);
    return e;
  }
  assert.fail('expected the render to fail');
}

/** An example's template and data (examples/<name>/{template,data}.json). */
export function example(name: string): { template: any; data: any } {
  const dir = join(ROOT, 'examples', name);
  return {
    template: JSON.parse(readFileSync(join(dir, 'template.json'), 'utf8')),
    data: JSON.parse(readFileSync(join(dir, 'data.json'), 'utf8')),
  };
}
