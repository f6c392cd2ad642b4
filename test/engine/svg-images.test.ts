/**
 * SVG images: drawn as vectors (path operators, no image XObject) in the box the layout gives
 * them, sized from width/height or viewBox; cleaned (nothing outside the document is read, links
 * and embedded rasters dropped, entities refused); limited (elements, nested <use>); and URL or
 * asset sources taken from RenderOptions.images, listed by imageSources().
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { imageSources, renderPdf, RenderError } from '../../engine/index.ts';
import { pdfAnnotations, pdfOperators, unionBox } from '../helpers/pdfops.ts';
import { encodePng } from '../helpers/images.ts';
import { NOW, render, renderError } from '../helpers/render.ts';

const MARGIN = 40;
const PAGE = { size: 'A4', margin: MARGIN };
const near = (a: number, b: number, tol = 0.6) => Math.abs(a - b) < tol;
const svgUri = (svg: string) => `data:image/svg+xml;utf8,${encodeURIComponent(svg)}`;
const svg64 = (svg: string) => `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;

const BADGE = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"><rect x="0" y="0" width="200" height="100" fill="#1e3a8a"/><circle cx="50" cy="50" r="30" fill="#fbbf24"/></svg>';

test('an SVG is drawn as vector paths, without an image XObject, filling the box the layout gives it', async () => {
  const r = await render({ page: PAGE, content: [{ text: 'before' }, { image: svgUri(BADGE), width: 300 }, { text: 'after' }] });
  const [ops] = await pdfOperators(r.pdf);
  assert.equal(ops.images.length, 0, 'no image painted');
  assert.ok(!r.pdf.includes('/Subtype /Image'), 'no image XObject in the file');
  assert.ok(ops.fills >= 2, `the rectangle and the circle are filled paths (${ops.fills} fills)`);
  const box = unionBox(ops.filledBoxes);
  assert.ok(near(box.x, MARGIN) && near(box.width, 300), `x ${box.x} width ${box.width}`);
  assert.ok(near(box.height, 150), `height ${box.height}: the viewBox's 2:1 aspect kept`);
  const page = r.doc.pages[0];
  const before = page.runs.find((x) => x.str === 'before')!;
  const after = page.runs.find((x) => x.str === 'after')!;
  assert.ok(box.y > before.y && box.y + box.height < after.y, 'between its neighbours');
});

test('natural size: width and height (mm converted, unitless as points), else the viewBox; base64 and utf8 URIs', async () => {
  const sized = '<svg xmlns="http://www.w3.org/2000/svg" width="50mm" height="20mm"><rect width="100%" height="100%" fill="red"/></svg>';
  const r1 = await render({ page: PAGE, content: [{ image: svg64(sized) }] });
  const b1 = unionBox((await pdfOperators(r1.pdf))[0].filledBoxes);
  assert.ok(near(b1.width, (50 * 72) / 25.4, 1) && near(b1.height, (20 * 72) / 25.4, 1), `${b1.width} x ${b1.height}`);
  const r2 = await render({ page: PAGE, content: [{ image: svgUri(BADGE) }] });
  const b2 = unionBox((await pdfOperators(r2.pdf))[0].filledBoxes);
  assert.ok(near(b2.width, 200) && near(b2.height, 100), `${b2.width} x ${b2.height}`);
  const e = await renderError({ content: [{ text: 'x' }, { image: svgUri('<svg xmlns="http://www.w3.org/2000/svg"><rect width="5" height="5"/></svg>') }] });
  assert.equal(e.code, 'IMAGE_INVALID');
  assert.equal(e.path, 'content[1].image');
  assert.match(e.message, /viewBox, or width and height/);
});

test('sizes too small to draw are IMAGE_INVALID at the image, and a small legal size is drawn at its size', async () => {
  const rect = '<rect width="1" height="1"/>';
  const cases = [
    ['width="0.0001" height="10000"', /SVG width "0.0001" is below 0.001 pt/],
    ['width="10000" height="0.0001"', /SVG height "0.0001" is below 0.001 pt/],
    ['viewBox="0 0 0.0001 10000"', /viewBox "0 0 0.0001 10000" is smaller than 0.01 units a side/],
    ['width="100" height="100" viewBox="0 0 1e-9 1e-9"', /viewBox "0 0 1e-9 1e-9"/],
    ['width="0.005" height="10"', /without a viewBox is 0.005 x 10 user units, smaller than 0.01/],
  ] as const;
  for (const [attrs, message] of cases) {
    for (const width of [undefined, 100]) {
      const e = await renderError({ content: [{ text: 'x' }, { image: svgUri(`<svg xmlns="http://www.w3.org/2000/svg" ${attrs}>${rect}</svg>`), ...(width ? { width } : {}) }] });
      assert.equal(e.code, 'IMAGE_INVALID', `${attrs} width ${width}: ${e.message}`);
      assert.equal(e.path, 'content[1].image');
      assert.match(e.message, message);
    }
  }
  // 0.0004 pt wide was written back as 0 (three decimals) and failed in the drawing with no path.
  const thin = `<svg xmlns="http://www.w3.org/2000/svg" width="0.0015" height="0.02" viewBox="0 0 0.15 2"><rect width="0.15" height="2" fill="red"/></svg>`;
  const r = await render({ page: PAGE, content: [{ image: svgUri(thin), width: 15 }] });
  const box = unionBox((await pdfOperators(r.pdf))[0].filledBoxes);
  assert.ok(near(box.width, 15, 0.1) && near(box.height, 200, 0.5), `${box.width} x ${box.height}`);
});

test('an SVG number a PDF cannot hold (1e21 or more, written or multiplied out by transforms) is IMAGE_INVALID at the image', async () => {
  for (const [inner, shown] of [
    ['<path d="M0 0 L 1e300 1e300"/>', '1e+300'],
    ['<rect width="5" height="5" stroke="red" style="stroke-width:1e300"/>', '1e+300'],
    ['<g transform="scale(1e14) scale(1e14)"><rect width="1" height="1"/></g>', '1e+28'],
  ] as const) {
    const e = await renderError({ content: [{ text: 'x' }, { image: svgUri(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">${inner}</svg>`) }] });
    assert.equal(e.code, 'IMAGE_INVALID', e.message);
    assert.equal(e.path, 'content[1].image');
    assert.ok(e.message.includes(`cannot be drawn into a PDF: unsupported number: ${shown}`), e.message);
  }
});

test('nothing outside the SVG is read or kept: external and file references, embedded rasters and links are dropped', async () => {
  const png = `data:image/png;base64,${encodePng(2, 2, () => [255, 0, 0, 255]).toString('base64')}`;
  const hostile = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100">
    <style>@import url(https://evil.example/x.css);</style>
    <image href="file:///etc/passwd" width="10" height="10"/><image xlink:href="https://evil.example/a.png" width="10" height="10"/>
    <image href="${png}" width="50" height="50"/>
    <use href="https://evil.example/defs.svg#shape"/>
    <a href="javascript:alert(1)"><rect x="60" y="60" width="30" height="30" fill="green"/></a>
    <script>alert(1)</script></svg>`;
  const r = await render({ page: PAGE, content: [{ image: svgUri(hostile), width: 100 }] });
  const [ops] = await pdfOperators(r.pdf);
  assert.equal(ops.images.length, 0, 'no raster image drawn');
  assert.ok(ops.fills >= 1, 'the shape inside the link is drawn');
  assert.deepEqual((await pdfAnnotations(r.pdf))[0], [], 'no link annotation');
  const entity = await renderError({ content: [{ image: svgUri('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><text>&a;</text></svg>') }] });
  assert.equal(entity.code, 'IMAGE_INVALID');
  assert.match(entity.message, /entities/);
});

test('limits: more elements than maxSvgElements, and <use> references that multiply, fail with LIMIT_EXCEEDED', async () => {
  const many = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">${'<rect width="1" height="1"/>'.repeat(60)}</svg>`;
  const e = await renderError({ content: [{ image: '{{i}}' }] }, { i: svgUri(many) }, { maxSvgElements: 50 });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.equal(e.path, 'content[0].image');
  assert.match(e.message, /more than 50 elements/);
  // The same image within the limit of another render (the decoded image is cached) draws.
  await render({ content: [{ image: '{{i}}' }] }, { i: svgUri(many) });
  // Ten levels of ten <use> each: 10^10 rectangles from 111 elements.
  let defs = '<rect id="l0" width="1" height="1"/>';
  for (let i = 1; i <= 10; i++) defs += `<g id="l${i}">${Array.from({ length: 10 }, () => `<use href="#l${i - 1}"/>`).join('')}</g>`;
  const bomb = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs>${defs}</defs><use href="#l10"/></svg>`;
  const started = Date.now();
  const b = await renderError({ content: [{ text: 'x' }, { image: svgUri(bomb) }] });
  assert.equal(b.code, 'LIMIT_EXCEEDED');
  assert.match(b.message, /operators/);
  assert.equal(b.path, 'content[1].image', 'the drawing names its image');
  // Nesting: 255 groups in the root draw; 5,000 overflowed the drawing's recursion (RENDER_ERROR),
  // also when comments or CDATA hold closing tags.
  const nested = (n: number) => svgUri(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">${'<g>'.repeat(n)}<rect width="5" height="5"/>${'</g>'.repeat(n)}</svg>`);
  await render({ content: [{ image: nested(255), width: 50 }] });
  const deep = await renderError({ content: [{ image: nested(5000) }] });
  assert.equal(deep.code, 'LIMIT_EXCEEDED');
  assert.equal(deep.path, 'content[0].image');
  assert.match(deep.message, /nested 5001 levels deep, more than 256/);
  const hidden = svgUri(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">${'<g><!--</g>--><![CDATA[</g>]]>'.repeat(300)}<rect width="5" height="5"/>${'</g>'.repeat(300)}</svg>`);
  assert.match((await renderError({ content: [{ image: hidden }] })).message, /nested 301 levels deep/);
  // A quote in a processing instruction does not hide the tags after it (the drawing ends it at '?>').
  const quoted = svgUri(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><?x ' ?>${'<g>'.repeat(300)}<rect width="5" height="5"/><desc>'</desc>${'</g>'.repeat(300)}</svg>`);
  assert.match((await renderError({ content: [{ image: quoted }] })).message, /nested 30\d levels deep/);
  // The root is the first element: an <svg> in a comment or processing instruction before it is not.
  const commented = svgUri(`<?foo <svg width="1" height="1"?><!-- exported <svg> icon --><svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10"/></svg>`);
  const sized = unionBox((await pdfOperators((await render({ page: PAGE, content: [{ image: commented }] })).pdf))[0].filledBoxes);
  assert.ok(near(sized.width, 20) && near(sized.height, 10), `${sized.width} x ${sized.height}`);
  // A '>' in an attribute value does not end its tag; a self-closing element does not nest.
  await render({ content: [{ image: svgUri(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">${'<rect title="a>b" width="1" height="1"/>'.repeat(300)}</svg>`), width: 50 }] });
  assert.ok(Date.now() - started < 20_000, 'stopped early');
});

test('a plain path with more segments than its operator budget fails with LIMIT_EXCEEDED at the image, before it is drawn', async () => {
  const d = `M0 0${' L1 1 L2 0'.repeat(125_000)}`;
  const long = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="${d}"/></svg>`;
  const e = await renderError({ content: [{ text: 'x' }, { image: '{{i}}' }] }, { i: svgUri(long) });
  assert.equal(e.code, 'LIMIT_EXCEEDED');
  assert.equal(e.path, 'content[1].image');
  assert.match(e.message, /250001 path segments, more than 200000/);
  // points of a polygon count as segments too
  const poly = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><polygon points="${'1,2 3,4 '.repeat(110_000)}"/></svg>`;
  assert.equal((await renderError({ content: [{ image: svgUri(poly) }] })).path, 'content[0].image');
  // a path within the budget draws
  await render({ content: [{ image: svgUri(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M0 0${' L1 1 L2 0'.repeat(1000)}"/></svg>`) }] });
});

test('URL and asset sources: imageSources lists them with their paths (placeholders bound); their bytes come from options.images', async () => {
  const def = {
    header: [{ image: 'asset:0123456789abcdef0123456789abcdef', height: 10 }],
    content: [{ text: 'x' }, { image: '{{logo}}', width: 40 }, { image: `data:image/png;base64,${encodePng(2, 2, () => [9, 9, 9, 255]).toString('base64')}` }, { stack: [{ each: 'items', as: 'it', content: [{ image: '{{it.pic}}' }] }] }],
  };
  const data = { logo: 'https://cdn.example.com/logo.svg', items: [{ pic: 'https://cdn.example.com/a.png' }, { pic: 'https://cdn.example.com/logo.svg' }, { pic: '' }] };
  const sources = imageSources(def, data, { now: NOW });
  assert.deepEqual(sources, [
    { src: 'asset:0123456789abcdef0123456789abcdef', path: 'header[0].image' },
    { src: 'https://cdn.example.com/logo.svg', path: 'content[1].image' },
    { src: 'https://cdn.example.com/a.png', path: 'content[3].stack[0].content[0].image' },
  ]);
  const png = encodePng(4, 2, () => [0, 128, 0, 255]);
  const images = new Map<string, Uint8Array>([
    ['asset:0123456789abcdef0123456789abcdef', Buffer.from(BADGE)],
    ['https://cdn.example.com/logo.svg', Buffer.from(BADGE)],
    ['https://cdn.example.com/a.png', png],
  ]);
  const r = await renderPdf(def, data, { now: NOW, images });
  const [ops] = await pdfOperators(r.pdf);
  assert.equal(ops.images.length, 2, 'the PNGs (URL and data URI) are images; the SVGs are paths');
  const missing = await renderPdf(def, data, { now: NOW, images: new Map([...images].slice(1)) }).catch((e) => e);
  assert.ok(missing instanceof RenderError);
  assert.equal(missing.code, 'IMAGE_INVALID');
  assert.equal(missing.path, 'header[0].image');
  assert.match(missing.message, /was not fetched/);
  // Bytes that are not an image are refused like a bad data URI.
  const bad = await renderPdf({ content: [{ image: 'https://x.example/a' }] }, {}, { images: new Map([['https://x.example/a', Buffer.from('<html>')]]) }).catch((e) => e);
  assert.equal(bad.code, 'IMAGE_INVALID');
});

test('protection: AES-256 with permissions; refused with a PDF/A variant', async () => {
  const r = await renderPdf({ content: [{ text: 'secret' }] }, {}, { now: NOW, protection: { userPassword: 'u', permissions: ['print'] } });
  assert.match(r.pdf.subarray(0, 2000).toString('latin1') + r.pdf.subarray(-3000).toString('latin1'), /\/Encrypt/);
  const e = await renderPdf({ content: [{ text: 'x' }] }, {}, { pdfVariant: 'pdf/a-2b', protection: { userPassword: 'u' } }).catch((x) => x);
  assert.equal(e.code, 'PDFA_CONFLICT');
});

test('imageSources gives the path a render reports for the same image, after each and if expand, without binding what holds no image', async () => {
  const rows = Array.from({ length: 3000 }, (_, i) => ({ name: `Item ${i}` }));
  const def = {
    content: [
      { each: 'rows', as: 'r', content: [{ text: '{{r.name}}' }] },
      { if: 'flag', then: [{ text: 'a' }, { text: 'b' }] },
      { table: { columns: ['*'], rows: [{ each: 'rows', as: 'r', row: ['{{r.name}}'] }] } },
      { stack: [{ text: 'q' }, { image: '{{logo}}' }] },
    ],
  };
  const data = { logo: 'https://x.example/y.png', flag: true, rows };
  const [use] = imageSources(def, data, { now: NOW });
  assert.equal(use.path, 'content[3].stack[1].image', 'the template path, not the place after each and if expand');
  const e = await renderPdf(def, data, { now: NOW }).catch((x) => x);
  assert.equal(e.code, 'IMAGE_INVALID');
  assert.equal(e.path, use.path);
});

test('imageSources lists an image of the content under an if only when the data takes its branch; a header\'s always (it may depend on $page)', () => {
  const def = {
    header: [{ if: { gt: ['$page', 1] }, then: [{ image: 'https://x.example/head.png' }] }],
    content: [
      { if: 'show', then: [{ image: 'https://x.example/then.png' }], else: [{ stack: [{ image: 'asset:0123456789abcdef0123456789abcdef' }] }] },
      { table: { columns: ['*'], rows: [{ if: 'show', then: [[{ image: 'https://x.example/row.png' }]] }] } },
    ],
  };
  const sources = (data: unknown) => imageSources(def, data, { now: NOW }).map((u) => `${u.src} ${u.path}`);
  assert.deepEqual(sources({ show: false }), ['https://x.example/head.png header[0].then[0].image', 'asset:0123456789abcdef0123456789abcdef content[0].else[0].stack[0].image']);
  assert.deepEqual(sources({ show: true }), ['https://x.example/head.png header[0].then[0].image', 'https://x.example/then.png content[0].then[0].image', 'https://x.example/row.png content[1].table.rows[0].then[0][0].image']);
  // $page is not set in the content, as in a render: its else branch is drawn, so fetched.
  const paged = { content: [{ if: { eq: ['$page', 1] }, then: [{ text: 'first' }], else: [{ image: 'https://x.example/else.png' }] }] };
  assert.deepEqual(imageSources(paged, {}, { now: NOW }).map((u) => u.path), ['content[0].else[0].image']);
  // When binding the content fails (here past maxNodes), every image it may draw is listed.
  const many = { content: [{ each: 'items', content: [{ text: 'x' }] }, { if: 'show', then: [{ image: 'https://x.example/then.png' }] }] };
  assert.deepEqual(imageSources(many, { items: Array(50).fill(0), show: false }, { now: NOW, maxNodes: 10 }).map((u) => u.path), ['content[1].then[0].image']);
  assert.deepEqual(imageSources(many, { items: Array(5).fill(0), show: false }, { now: NOW, maxNodes: 10 }), []);
});

test('PDF/A: an SVG with text conforms to PDF/A-2b; PDF/A-1b takes SVG shapes but refuses SVG text and opacity (PDFA_CONFLICT)', async () => {
  const { checkPdfa } = await import('../helpers/pdfa-structure.ts');
  const withText = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100"><rect width="200" height="100" fill="#1e3a8a"/><text x="100" y="60" font-size="30" fill="white">SVG</text></svg>';
  const doc = (svg: string) => ({ content: [{ text: 'x' }, { image: svgUri(svg), width: 100 }] });
  const two = await renderPdf(doc(withText), {}, { now: NOW, pdfVariant: 'pdf/a-2b' });
  assert.deepEqual((await checkPdfa(two.pdf, 2)).faults, []);
  const one = await renderPdf(doc(BADGE), {}, { now: NOW, pdfVariant: 'pdf/a-1b' });
  assert.deepEqual((await checkPdfa(one.pdf, 1)).faults, []);
  for (const svg of [withText, BADGE.replace('fill="#fbbf24"', 'fill="#fbbf24" fill-opacity="0.5"')]) {
    const e = await renderPdf(doc(svg), {}, { now: NOW, pdfVariant: 'pdf/a-1b' }).catch((x) => x);
    assert.equal(e.code, 'PDFA_CONFLICT');
  }
});

test('an image clamped to the page height goes to a new page when it does not fit below what is there (regression)', async () => {
  // Found by the layout property: 577 pt tall on a 150 pt content height scaled to 150.00000000000003,
  // which counted as taller than any page and was left on page 1, running off the paper.
  const png = (w: number, h: number) => `data:image/png;base64,${encodePng(w, h, () => [30, 60, 90, 255]).toString('base64')}`;
  const r = await render({ page: { size: [687, 160], margin: 5 }, font: { size: 8 }, content: [{ image: png(20, 20) }, { image: png(30, 20), height: 577, fit: 'contain' }] });
  const pages = await pdfOperators(r.pdf);
  assert.equal(pages.length, 2);
  for (const [i, ops] of pages.entries()) {
    for (const img of ops.images) assert.ok(img.y >= -0.01 && img.y + img.height <= 160.01, `page ${i + 1}: image at y ${img.y} height ${img.height}`);
  }
});
