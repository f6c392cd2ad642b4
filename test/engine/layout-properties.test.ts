/**
 * Properties of the layout over generated documents (fast-check): random page sizes and margins;
 * paragraphs of data words and long unbreakable words; tables with random column widths, spans
 * (both ways of writing covered cells), header and footer rows, stripes and nested stacks and
 * tables; images and QR codes of random sizes.
 *
 * For every input that validates: it renders or fails with a RenderError that has a path;
 * nothing is painted outside the page (a single character wider than its whole column starts
 * inside the page and is drawn whole); the cells of a table never overlap (nested tables sit
 * inside their cell); no letter of the data is lost or printed twice (poppler's text, lowercase
 * letters counted: the generated headers and the repeated header rows use capitals only); and,
 * without images or codes, every page but the last is at least half used.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { RenderError, renderPdf, validateTemplate } from '../../engine/index.ts';
import type { Page } from '../../engine/layout/nodes.ts';
import { NOW } from '../helpers/render.ts';
import { docArb, type Doc } from './helpers/generated-docs.ts';
import { bounds, flatItems, inside, layout, overlaps, strokes, type Rect } from './helpers/layout.ts';

function rawText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'platen-prop-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    return execFileSync('pdftotext', ['-raw', file, '-'], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function letterCounts(s: string): Map<string, number> {
  const m = new Map<string, number>();
  for (const ch of s) if (ch >= 'a' && ch <= 'z') m.set(ch, (m.get(ch) ?? 0) + 1);
  return m;
}

/** Cell borders of one page: any two are apart or one holds the other (a nested table's cells). */
function assertCellsApart(page: Page, n: number): void {
  const cells: Rect[] = strokes(page);
  for (let i = 0; i < cells.length; i++) {
    for (let j = i + 1; j < cells.length; j++) {
      const a = cells[i];
      const b = cells[j];
      if (!overlaps(a, b, 0.3)) continue;
      assert.ok(inside(a, b, 0.3) || inside(b, a, 0.3), `page ${n + 1}: cells ${JSON.stringify(a)} and ${JSON.stringify(b)} overlap`);
    }
  }
}

/** Generated documents with one-letter columns on small pages can need thousands of pages: cut short. */
const LIMITS = { maxPages: 80 };

/** Fails with the error and the counterexample, image data left out. */
function compactReport(details: fc.RunDetails<[Doc]>): void {
  if (!details.failed) return;
  const doc = details.counterexample?.[0];
  const json = JSON.stringify(doc, (_k, v) => (typeof v === 'string' && v.startsWith('data:image') ? 'PNG' : v));
  throw new Error(`${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}\nafter ${details.numRuns} runs, ${details.numShrinks} shrinks; seed ${details.seed}, path ${details.counterexamplePath}\n${json}`);
}

test('property: generated documents render inside the page, cells apart, every letter of the data once', { timeout: 600_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(docArb, async ({ definition, data, hasAtoms }) => {
      const v = validateTemplate(definition);
      if (!v.ok) {
        assert.ok(v.errors.every((e) => e.path !== ''), JSON.stringify(v.errors));
        return;
      }
      let pdf: Buffer;
      try {
        pdf = (await renderPdf(definition, data, { now: NOW, limits: LIMITS })).pdf;
      } catch (e) {
        assert.ok(e instanceof RenderError, String(e));
        assert.ok(e.path, `${e.code} without a path: ${e.message}`);
        return;
      }
      const pages = layout(definition, data, LIMITS);
      const [w, h] = (definition.page as { size: [number, number] }).size;
      const pageBox = { x: 0, y: 0, w, h };
      pages.forEach((page, n) => {
        for (const item of flatItems(page.items)) {
          const b = bounds(item);
          if (!b) continue;
          // One character wider than its whole (absurdly narrow) column cannot be broken: it starts
          // inside the page and is drawn whole.
          const lone = item.kind === 'text' && [...new Intl.Segmenter().segment(item.run.pieces.map((p) => p.text).join(''))].length === 1;
          const box = lone ? { ...b, w: 0 } : b;
          assert.ok(inside(box, pageBox, 0.5), `page ${n + 1}: ${item.kind} at ${JSON.stringify(b)} is outside the ${w} x ${h} page`);
        }
        assertCellsApart(page, n);
      });
      // Every lowercase letter of the data, once: nothing lost at a page break, nothing drawn twice.
      const expected = letterCounts(data.w.join(''));
      const got = letterCounts(rawText(pdf));
      assert.deepEqual([...got.entries()].sort(), [...expected.entries()].sort(), 'letters of the data in the PDF');
      if (!hasAtoms) {
        const margin = (definition.page as { margin: number }).margin;
        const top = margin + 0;
        pages.slice(0, -1).forEach((page, n) => {
          let bottom = top;
          for (const item of flatItems(page.items)) {
            const b = bounds(item);
            if (b && item.kind === 'text') bottom = Math.max(bottom, b.y + b.h);
          }
          assert.ok(bottom - top >= (h - 2 * margin) / 2 - 30, `page ${n + 1} of ${pages.length} is used to ${bottom} of ${h}`);
        });
      }
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 100), reporter: compactReport },
  );
});
