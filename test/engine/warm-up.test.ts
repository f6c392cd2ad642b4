/**
 * A render thread's one-time setup (warmUp) and the font metrics read without fontkit's full
 * table decode: same faces, same metrics, same PDF.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import * as fontkit from 'fontkit';
import { bundledFontLibrary } from '../../engine/index.ts';
import type { FontStyle } from '../../engine/text/fonts.ts';
import { ROOT } from '../helpers/render.ts';

test("every bundled face's metrics, post header and glyph names equal those of fontkit's own full parse", () => {
  const lib = bundledFontLibrary();
  const seen = new Set<string>();
  for (const family of lib.familyNames()) {
    for (const weight of [400, 700]) {
      for (const style of ['normal', 'italic'] as FontStyle[]) {
        const face = lib.resolve(family, weight, style);
        if (seen.has(face.key)) continue;
        seen.add(face.key);
        const bytes = (face.font as unknown as { stream: { buffer: Uint8Array } }).stream.buffer;
        const ref = fontkit.create(Buffer.from(bytes)) as unknown as fontkit.Font & { post: Record<string, number> };
        const upm = ref.unitsPerEm;
        assert.equal(face.unitsPerEm, upm, face.key);
        assert.equal(face.ascent, ref.ascent / upm, `${face.key} ascent`);
        assert.equal(face.descent, Math.abs(ref.descent) / upm, `${face.key} descent`);
        assert.equal(face.underlinePosition, Math.abs(ref.underlinePosition || -0.1 * upm) / upm, `${face.key} underlinePosition`);
        assert.equal(face.underlineThickness, (ref.underlineThickness || 0.05 * upm) / upm, `${face.key} underlineThickness`);
        assert.equal(face.xHeight, (ref.xHeight || 0.5 * upm) / upm, `${face.key} xHeight`);
        const post = (face.font as unknown as { post: Record<string, number> }).post;
        for (const field of ['version', 'italicAngle', 'underlinePosition', 'underlineThickness', 'isFixedPitch']) {
          assert.equal(post[field], ref.post[field], `${face.key} post.${field}`);
        }
        assert.equal(face.font.italicAngle, ref.italicAngle, `${face.key} italicAngle`);
        for (const gid of [0, 1, 36, 68, ref.numGlyphs - 1]) {
          assert.equal(face.font.getGlyph(gid).name, ref.getGlyph(gid).name, `${face.key} glyph ${gid} name`);
        }
      }
    }
  }
  assert.ok(seen.size >= 15, `only ${seen.size} faces checked`);
});

test('the first render after warmUp() in a fresh process writes the same PDF as one without it', () => {
  const script = `
    import { readFileSync } from 'node:fs';
    import { createHash } from 'node:crypto';
    const engine = await import(${JSON.stringify(join(ROOT, 'engine/index.ts'))});
    const read = (f) => JSON.parse(readFileSync(${JSON.stringify(join(ROOT, 'examples/invoice'))} + '/' + f, 'utf8'));
    if (process.argv.includes('warm')) await engine.warmUp();
    const r = await engine.renderPdf(read('template.json'), read('data.json'), { now: new Date('2026-01-15T12:00:00Z') });
    console.log(r.pages, createHash('sha256').update(r.pdf).digest('hex'));`;
  const run = (...args: string[]) => execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, '--', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }).trim();
  const warmed = run('warm');
  const cold = run();
  assert.match(cold, /^1 [0-9a-f]{64}$/);
  assert.equal(warmed, cold);
});
