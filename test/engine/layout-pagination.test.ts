/**
 * Pagination of block content: explicit breaks, keepTogether, paragraphs split between lines,
 * and header / footer / background on every page with $page and $pages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linesOf } from '../helpers/pdf.ts';
import { render } from '../helpers/render.ts';
import { encodePng } from '../helpers/images.ts';
import { pdfOperators, textLines } from '../helpers/pdfops.ts';

// A small page keeps these documents short: 300 x 300 pt, 20 pt margins.
const PAGE = { size: [300, 300], margin: 20 };

/** Page index (0-based) of every line whose text matches, in document order. */
function pagesOf(doc: { pages: { runs: any[] }[] }, re: RegExp): { text: string; page: number; y: number }[] {
  const out: { text: string; page: number; y: number }[] = [];
  doc.pages.forEach((p, i) => {
    for (const l of textLines(p)) if (re.test(l.text)) out.push({ text: l.text, page: i, y: l.y });
  });
  return out;
}

test('pageBreak starts a new page', async () => {
  const r = await render({ page: PAGE, content: [{ text: 'first' }, { pageBreak: true }, { text: 'second' }] });
  assert.equal(r.pages, 2);
  assert.deepEqual(linesOf(r.doc.pages[0].runs), ['first']);
  assert.deepEqual(linesOf(r.doc.pages[1].runs), ['second']);
});

test('breakBefore: "page" starts the node on a new page, and is ignored when it is already first', async () => {
  const r = await render({
    page: PAGE,
    content: [
      { text: 'cover', breakBefore: 'page' },
      { text: 'intro' },
      { stack: [{ text: 'chapter' }, { text: 'body' }], breakBefore: 'page' },
    ],
  });
  assert.equal(r.pages, 2, 'breakBefore on the first node adds no blank page');
  assert.deepEqual(linesOf(r.doc.pages[0].runs), ['cover', 'intro']);
  assert.deepEqual(linesOf(r.doc.pages[1].runs), ['chapter', 'body']);
});

test('keepTogether moves a stack that would be cut to the next page whole', async () => {
  // 10 pt text at line height 1.25 is 12.5 pt a line; the body is 260 pt tall: 20 lines.
  const filler = Array.from({ length: 16 }, (_, i) => ({ text: `filler ${i + 1}` }));
  const kept = Array.from({ length: 6 }, (_, i) => ({ text: `kept ${i + 1}` }));
  const r = await render({ page: PAGE, content: [...filler, { stack: kept, keepTogether: true }, { text: 'after' }] });
  const k = pagesOf(r.doc, /^kept \d+$/);
  assert.equal(k.length, 6);
  assert.equal(k[0].page, k[5].page, `first kept line on page ${k[0].page + 1}, last on page ${k[5].page + 1}`);
  assert.equal(k[0].page, 1, 'the stack moved to page 2');
  const f = pagesOf(r.doc, /^filler \d+$/);
  assert.ok(f.every((l) => l.page === 0), 'the filler stays on page 1');
  // The stack starts at the top of page 2 (same baseline as the first line of page 1).
  assert.ok(Math.abs(k[0].y - f[0].y) < 0.5, `kept 1 at ${k[0].y}, page top line at ${f[0].y}`);
});

test('without keepTogether the same stack is split between its children', async () => {
  const filler = Array.from({ length: 16 }, (_, i) => ({ text: `filler ${i + 1}` }));
  const kept = Array.from({ length: 6 }, (_, i) => ({ text: `kept ${i + 1}` }));
  const r = await render({ page: PAGE, content: [...filler, { stack: kept }] });
  const k = pagesOf(r.doc, /^kept \d+$/);
  assert.deepEqual(k.map((l) => l.text), kept.map((n) => n.text));
  assert.equal(k[0].page, 0);
  assert.equal(k[5].page, 1);
});

test('keepTogether on a node taller than a page splits it anyway, losing nothing', async () => {
  const kept = Array.from({ length: 30 }, (_, i) => ({ text: `item ${i + 1}` }));
  const r = await render({ page: PAGE, content: [{ text: 'intro' }, { stack: kept, keepTogether: true }] });
  const k = pagesOf(r.doc, /^item \d+$/);
  assert.deepEqual(k.map((l) => l.text), kept.map((n) => n.text));
  assert.ok(r.pages >= 2);
});

test('a long paragraph splits across pages between lines with no line lost or repeated', async () => {
  const count = 400;
  const words = Array.from({ length: count }, (_, i) => `w${i + 1}`);
  const r = await render({ page: PAGE, content: [{ text: words.join(' ') }] });
  assert.ok(r.pages >= 2, `pages: ${r.pages}`);
  const lines = r.doc.pages.flatMap((p) => textLines(p).map((l) => l.text));
  assert.deepEqual(lines.join(' ').split(' '), words);
  // Every page but the last is full down to the bottom margin: the next line would not fit.
  const lineHeight = 12.5;
  for (const [i, page] of r.doc.pages.slice(0, -1).entries()) {
    const ls = textLines(page);
    const last = ls[ls.length - 1];
    assert.ok(last.y + lineHeight > 300 - 20 - lineHeight, `page ${i + 1} ends early at ${last.y}`);
    assert.ok(last.y < 300 - 20, `page ${i + 1}: line below the bottom margin at ${last.y}`);
  }
});

test('content never runs into the bottom margin', async () => {
  const r = await render({ page: PAGE, content: Array.from({ length: 60 }, (_, i) => ({ text: `line ${i + 1}`, margin: [0, 0, 3, 0] })) });
  for (const [i, page] of r.doc.pages.entries()) {
    for (const l of textLines(page)) assert.ok(l.y <= 300 - 20, `page ${i + 1}: "${l.text}" at ${l.y}`);
  }
  assert.deepEqual(pagesOf(r.doc, /^line \d+$/).map((l) => l.text), Array.from({ length: 60 }, (_, i) => `line ${i + 1}`));
});

test('header, footer and background appear on every page with $page and $pages', async () => {
  const body = Array.from({ length: 45 }, (_, i) => ({ text: `body ${i + 1}` }));
  const r = await render(
    {
      page: PAGE,
      header: [{ text: 'HEAD {{title}} {{$page}}/{{$pages}}' }],
      footer: [{ text: 'Page {{$page}} of {{$pages}}', textAlign: 'right' }],
      background: [{ text: 'WATERMARK {{$page}}', textAlign: 'center', margin: [150, 0, 0, 0], color: '#dddddd' }],
      content: body,
    },
    { title: 'Report' },
  );
  const n = r.pages;
  assert.ok(n >= 3, `pages: ${n}`);
  r.doc.pages.forEach((page, i) => {
    const lines = textLines(page);
    const head = lines.find((l) => l.text.startsWith('HEAD'));
    const foot = lines.find((l) => l.text.startsWith('Page '));
    const mark = lines.find((l) => l.text.startsWith('WATERMARK'));
    assert.equal(head?.text, `HEAD Report ${i + 1}/${n}`, `page ${i + 1} header`);
    assert.equal(foot?.text, `Page ${i + 1} of ${n}`, `page ${i + 1} footer`);
    assert.equal(mark?.text, `WATERMARK ${i + 1}`, `page ${i + 1} background`);
    const content = lines.filter((l) => l.text.startsWith('body'));
    assert.ok(content.length > 0, `page ${i + 1} has body lines`);
    assert.ok(head.y < content[0].y, `page ${i + 1}: header at ${head.y} not above the first body line at ${content[0].y}`);
    assert.ok(foot.y > content[content.length - 1].y, `page ${i + 1}: footer at ${foot.y} not below the last body line`);
    // Header inside the top margin; footer right-aligned at the right margin.
    assert.ok(head.left >= 20 - 0.5 && head.y > 20, `page ${i + 1}: header at (${head.left}, ${head.y})`);
    assert.ok(Math.abs(foot.right - (300 - 20)) < 0.5, `page ${i + 1}: footer ends at ${foot.right}`);
    assert.ok(foot.y <= 300 - 20, `page ${i + 1}: footer below the bottom margin`);
    // The background is laid out over the full page width (margins do not apply): centred on 150.
    assert.ok(Math.abs((mark.left + mark.right) / 2 - 150) < 0.5, `page ${i + 1}: watermark centre ${(mark.left + mark.right) / 2}`);
  });
  assert.deepEqual(pagesOf(r.doc, /^body \d+$/).map((l) => l.text), body.map((b) => b.text));
});

test('the footer sits at the bottom of the content area and the body shrinks above it', async () => {
  const r = await render({
    page: PAGE,
    footer: [{ text: 'FOOT' }],
    content: Array.from({ length: 40 }, (_, i) => ({ text: `row ${i + 1}` })),
  });
  for (const [i, page] of r.doc.pages.entries()) {
    const lines = textLines(page);
    const foot = lines.find((l) => l.text === 'FOOT')!;
    assert.ok(foot, `page ${i + 1} footer`);
    // One 12.5 pt line whose box ends at the bottom margin: baseline within the last line box.
    assert.ok(foot.y > 300 - 20 - 12.5 && foot.y <= 300 - 20, `page ${i + 1}: footer baseline ${foot.y}`);
    for (const l of lines) if (l !== foot) assert.ok(l.y < foot.y - 12.5 + 0.5, `page ${i + 1}: "${l.text}" at ${l.y} overlaps the footer at ${foot.y}`);
  }
});

test('a header or footer that changes with $page or $pages gets its own room on each page: a first-page letterhead, a last-page footer', async () => {
  const body = Array.from({ length: 60 }, (_, i) => ({ text: `body ${i + 1}` }));
  const r = await render({
    page: PAGE,
    header: [{ if: { eq: ['$page', 1] }, then: [{ text: 'LETTERHEAD\nline 2\nline 3', fontSize: 14 }] }],
    footer: [
      { if: { eq: ['$page', '{{$pages}}'] }, then: [{ text: 'TOTAL 1\nTOTAL 2\nTOTAL 3\nTOTAL 4' }], else: [{ text: 'continued' }] },
    ],
    content: body,
  });
  const n = r.pages;
  assert.ok(n >= 3, `pages: ${n}`);
  r.doc.pages.forEach((page, i) => {
    const lines = textLines(page);
    const content = lines.filter((l) => l.text.startsWith('body'));
    const head = lines.filter((l) => /^(LETTERHEAD|line \d)$/.test(l.text));
    const foot = lines.filter((l) => /^(TOTAL \d|continued)$/.test(l.text));
    assert.equal(head.length, i === 0 ? 3 : 0, `page ${i + 1} letterhead lines`);
    assert.deepEqual(foot.map((l) => l.text), i === n - 1 ? ['TOTAL 1', 'TOTAL 2', 'TOTAL 3', 'TOTAL 4'] : ['continued'], `page ${i + 1} footer`);
    assert.ok(content.length > 0, `page ${i + 1} has body lines`);
    // Body lines between the bands, every line of the footer inside the bottom margin.
    if (head.length > 0) assert.ok(content[0].y - 10 > head[head.length - 1].y, `page ${i + 1}: body at ${content[0].y} overlaps the letterhead at ${head[head.length - 1].y}`);
    else assert.ok(content[0].y < 20 + 12.5, `page ${i + 1}: without the letterhead the body starts at the top (${content[0].y})`);
    assert.ok(content[content.length - 1].y < foot[0].y - 10 + 0.5, `page ${i + 1}: body at ${content[content.length - 1].y} overlaps the footer at ${foot[0].y}`);
    for (const l of foot) assert.ok(l.y <= 300 - 20, `page ${i + 1}: footer line "${l.text}" at ${l.y} is past the bottom margin`);
  });
  assert.deepEqual(pagesOf(r.doc, /^body \d+$/).map((l) => l.text), body.map((b) => b.text));
});

test('a first-page letterhead: an image or a fixed-height box measured for the pages after it still fits under it', async () => {
  const png = `data:image/png;base64,${encodePng(10, 100, () => [255, 0, 0, 255]).toString('base64')}`;
  const page = { size: [300, 400], margin: 20 };
  const header = [{ if: { eq: ['$page', 1] }, then: [{ spacer: 150 }] }];
  const r = await render({ page, header, content: [{ image: png, width: 100 }, { text: 'after' }] });
  const [ops] = await pdfOperators(r.pdf);
  const img = ops.images[0];
  assert.ok(img.y >= 170 - 0.5 && img.y + img.height <= 380 + 0.5, `the image spans ${img.y}..${img.y + img.height}: page 1 has 170..380`);
  const boxed = await render({ page, header, content: [{ text: 'intro' }, { stack: Array.from({ length: 20 }, (_, i) => ({ text: `boxed ${i}` })), height: 300 }] });
  for (const [i, p] of boxed.doc.pages.entries()) for (const l of textLines(p)) assert.ok(l.y <= 380, `page ${i + 1}: "${l.text}" at ${l.y}, past the bottom margin`);
});

test('a last-page footer taller than the room the last page has left goes to a page of its own; nothing overlaps it', async () => {
  const page = { size: [300, 400], margin: 20 };
  const footer = [{ if: { eq: ['$page', '{{$pages}}'] }, then: [{ text: Array.from({ length: 24 }, (_, i) => `TOTAL ${i}`).join('\n') }] }];
  for (const n of [5, 27, 40]) {
    const body = Array.from({ length: n }, (_, i) => ({ text: `line ${i}` }));
    const r = await render({ page, footer, content: body });
    const last = r.pages - 1;
    r.doc.pages.forEach((p, i) => {
      const lines = textLines(p);
      const totals = lines.filter((l) => l.text.startsWith('TOTAL'));
      const content = lines.filter((l) => l.text.startsWith('line'));
      assert.equal(totals.length, i === last ? 24 : 0, `${n} lines, page ${i + 1} of ${r.pages}: footer lines`);
      for (const t of totals) assert.ok(t.y <= 380, `${n} lines: footer line at ${t.y}, past the bottom margin`);
      if (totals.length > 0 && content.length > 0) assert.ok(content[content.length - 1].y < totals[0].y - 10, `${n} lines: body at ${content[content.length - 1].y} overlaps the footer at ${totals[0].y}`);
    });
    // Pages other than the last are full (28 lines of 12.5 pt in 360): the footer took no room from them.
    if (r.pages > 1) assert.equal(textLines(r.doc.pages[0]).length, Math.min(n, 28), `${n} lines: page 1 full`);
    assert.deepEqual(pagesOf(r.doc, /^line \d+$/).map((l) => l.text), body.map((b) => b.text));
  }
});

test('a table of contents gives the pages its headings are on when a last-page footer moves them', async () => {
  const footer = [{ if: { eq: ['$page', '{{$pages}}'] }, then: [{ text: 'T1\nT2\nT3\nT4\nT5\nT6\nT7\nT8' }] }];
  for (const n of [17, 23, 45, 51]) {
    const r = await render({ page: { size: [300, 400], margin: 20 }, footer, content: [{ toc: {} }, { text: 'Intro', role: 'h1' }, ...Array.from({ length: n }, (_, i) => ({ text: `line ${i}` })), { text: 'Last', role: 'h1' }, { text: 'tail' }] });
    const tocLine = textLines(r.doc.pages[0]).find((l) => l.text.startsWith('Last'))!;
    const listed = Number(tocLine.text.replace(/\D+/g, ''));
    const actual = r.doc.pages.findIndex((p, i) => textLines(p).some((l) => l.text === 'Last' && !(i === 0 && l === tocLine))) + 1;
    assert.equal(listed, actual, `${n} lines: the contents say page ${listed}, the heading is on page ${actual}`);
  }
});

test('bands on $pages: no empty page is added when fewer pages hold the content; a one-page document with a letterhead and a totals footer keeps an image between them', async () => {
  // A header shown only on documents of more than 3 pages: 40 lines make 2 pages without it.
  const header = [{ if: { gt: ['$pages', 3] }, then: [{ text: Array.from({ length: 10 }, (_, i) => `HEAD ${i}`).join('\n') }] }];
  const r = await render({ page: { size: [300, 400], margin: 20 }, header, content: Array.from({ length: 40 }, (_, i) => ({ text: `line ${i}` })) });
  assert.equal(r.pages, 2);
  assert.ok(r.doc.pages.every((p) => textLines(p).some((l) => l.text.startsWith('line'))), 'no page without content');
  // Page 1 of 1 has both bands: the image measured for the content fits between them.
  const png = `data:image/png;base64,${encodePng(10, 100, () => [255, 0, 0, 255]).toString('base64')}`;
  const lines = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`).join('\n');
  const one = await render({
    page: { size: [300, 400], margin: 20 },
    header: [{ if: { eq: ['$page', 1] }, then: [{ text: lines(6, 'H') }] }],
    footer: [{ if: { eq: ['$page', '{{$pages}}'] }, then: [{ text: lines(8, 'F') }] }],
    content: [{ image: png, width: 100 }],
  });
  const [ops] = await pdfOperators(one.pdf);
  const img = ops.images[0];
  const page1 = textLines(one.doc.pages[0]);
  const lastHead = page1.filter((l) => l.text.startsWith('H')).at(-1)!;
  const firstFoot = one.doc.pages.at(-1) === one.doc.pages[0] ? page1.find((l) => l.text.startsWith('F'))! : null;
  assert.ok(img.y > lastHead.y, `image at ${img.y}, letterhead down to ${lastHead.y}`);
  if (firstFoot) assert.ok(img.y + img.height < firstFoot.y - 10, `image down to ${img.y + img.height}, footer from ${firstFoot.y}`);
});

test('a first-page letterhead and a last-page footer that do not fit on one page together make two pages: the content under the letterhead, the footer on a page of its own', async () => {
  const lines = (n: number, p: string) => Array.from({ length: n }, (_, i) => `${p}${i}`).join('\n');
  const r = await render({
    page: { size: [300, 400], margin: 20 },
    header: [{ if: { eq: ['$page', 1] }, then: [{ text: lines(14, 'H') }] }],
    footer: [{ if: { eq: ['$page', '{{$pages}}'] }, then: [{ text: lines(14, 'F') }] }],
    content: [{ text: 'hello' }, { text: 'world' }],
  });
  assert.equal(r.pages, 2);
  const [first, second] = r.doc.pages.map((p) => textLines(p));
  assert.deepEqual(first.map((l) => l.text), [...lines(14, 'H').split('\n'), 'hello', 'world']);
  assert.deepEqual(second.map((l) => l.text), lines(14, 'F').split('\n'));
  for (const l of first) assert.ok(l.y <= 380, `page 1: "${l.text}" at ${l.y}, past the bottom margin`);
  // A letterhead that leaves no room on its own is still the template's fault.
  await assert.rejects(
    render({ page: { size: [300, 400], margin: 20 }, header: [{ if: { eq: ['$page', 1] }, then: [{ text: lines(29, 'H') }] }], content: [{ text: 'hello' }] }),
    (e: { code?: string; path?: string; message: string }) => e.code === 'TEMPLATE_INVALID' && e.path === 'header' && /of page 1 leave/.test(e.message),
  );
});

test('a header on one page in the middle (page 3) that leaves less room than the others: an image and a fixed-height box measured for the other pages are made to fit it', async () => {
  const png = `data:image/png;base64,${encodePng(10, 100, () => [255, 0, 0, 255]).toString('base64')}`;
  const head = Array.from({ length: 10 }, (_, i) => `H${i}`).join('\n');
  const header = [{ if: { eq: ['$page', 3] }, then: [{ text: head }] }];
  const filler = { text: Array.from({ length: 50 }, (_, i) => `L${i}`).join('\n') };
  const r = await render({ page: { size: [300, 400], margin: 20 }, header, content: [filler, { image: png, width: 200 }, { text: 'after' }] });
  const ops = await pdfOperators(r.pdf);
  const onPage3 = ops[2].images;
  assert.equal(onPage3.length, 1, 'the image is on page 3');
  const lastHead = textLines(r.doc.pages[2]).filter((l) => /^H\d$/.test(l.text)).at(-1)!;
  const img = onPage3[0];
  assert.ok(img.y > lastHead.y && img.y + img.height <= 380 + 0.5, `the image spans ${img.y}..${img.y + img.height}: page 3 has ${lastHead.y}..380`);
  const boxed = await render({ page: { size: [300, 400], margin: 20 }, header, content: [filler, { stack: [{ text: 'boxed' }], height: 360, backgroundColor: '#00ff00' }] });
  const fills = (await pdfOperators(boxed.pdf))[2].filledBoxes;
  assert.equal(fills.length, 1, 'the box is on page 3');
  assert.ok(fills[0].y > lastHead.y && fills[0].y + fills[0].height <= 380 + 0.5, `the box spans ${fills[0].y}..${fills[0].y + fills[0].height}: page 3 has ${lastHead.y}..380`);
});

test('an absolutely placed stamp near the paper\'s bottom on a page with less room does not make the content measured again (images keep their size)', async () => {
  const png = `data:image/png;base64,${encodePng(10, 10, () => [255, 0, 0, 255]).toString('base64')}`;
  const header = [{ if: { eq: ['$page', 3] }, then: [{ text: 'LETTERHEAD', fontSize: 40 }] }];
  const stamp = { text: 'STAMP', backgroundColor: '#ff0000', position: 'absolute', top: 370, left: 200 };
  // Page 3's header leaves ~306 pt; the stamp's box (page coordinates, 370..387) is past that
  // area's bottom (380) by design. The 340 pt image on page 4 has 360 pt there and keeps them.
  const content = (withStamp: boolean) => [{ text: 'one' }, { pageBreak: true }, { text: 'two' }, { pageBreak: true }, ...(withStamp ? [stamp] : []), { text: 'three' }, { pageBreak: true }, { image: png, height: 340 }];
  for (const withStamp of [false, true]) {
    const r = await render({ page: { size: [400, 400], margin: 20 }, header, content: content(withStamp) });
    assert.equal(r.pages, 4);
    const images = (await pdfOperators(r.pdf)).map((p) => p.images.map((i) => Math.round(i.height)));
    assert.deepEqual(images, [[], [], [], [340]], withStamp ? 'with the stamp' : 'without it');
  }
});

test('bands whose $pages conditions never let the page count settle fail with the counts tried, not a page-less room figure', async () => {
  // Laid out for 1 page the last-page footer and the header for $pages == 1 push the content to 3
  // pages; for 3 pages it fits on 1. The fallback (every page with the tallest bands) has no room.
  const band = (h: number, label: string) => ({ stack: [{ text: label }], height: h });
  const lines = Array.from({ length: 20 }, (_, i) => ({ text: `line ${i}` }));
  await assert.rejects(
    render({ page: { size: [300, 400], margin: 20 }, header: [{ if: { eq: ['$pages', 1] }, then: [band(150, 'H')] }], footer: [{ if: { eq: ['$page', '{{$pages}}'] }, then: [band(300, 'F')] }], content: lines }),
    (e: { code?: string; path?: string; message: string }) =>
      e.code === 'TEMPLATE_INVALID' && e.path === 'header' && /no page count fits them \(pages assumed -> pages made: 1 -> 3, 3 -> 1/.test(e.message) && /tallest header \(150 pt\) and footer \(300 pt\)/.test(e.message),
  );
});

test('a QR code in a table row on a page with its own header is measured again for that page, like an image (it ran into the footer)', async () => {
  const r = await render({
    page: { size: 'A5', margin: 50 },
    header: [{ if: { eq: ['$page', 3] }, then: [{ stack: [], height: 200 }] }],
    footer: [{ stack: [{ text: 'Page {{$page}} of {{$pages}}' }], height: 20 }],
    content: [{ text: 'Intro' }, { pageBreak: true }, { text: 'Second page' }, { pageBreak: true }, { table: { header: [['Code']], rows: [[{ qrcode: 'https://example.com/pay/123', size: 262 }]] } }],
  });
  assert.equal(r.pages, 3);
  // A5 is 595.28 pt tall: the footer band starts at 595.28 - 50 - 20.
  const qr = (await pdfOperators(r.pdf))[2].filledBoxes.find((b) => b.width > 100);
  assert.ok(qr, 'the QR code is on page 3');
  const bottom = qr.y + qr.height;
  assert.ok(bottom <= 595.28 - 70 + 0.5, `the QR code reaches ${bottom}, into the footer at ${595.28 - 70}`);
});

test('a stack whose absolute child (placed from its bottom, above the page) is carried on while the rest flows is not taken for one that placed nothing (was RENDER_ERROR "layout made no progress")', async () => {
  // Found by a generator of templates, made smaller.
  const template = {"page": {"size": [366, 495]}, "font": {"size": 12}, "content": [{"stack": [{"text": "k438x", "position": "absolute", "relativeTo": "parent", "bottom": 830}, {"stack": [{"text": "k443x"}]}, {"text": "k467x"}, {"stack": [{"table": {"rows": [[{}, {}, {"stack": [{"table": {"rows": [[{"stack": [{"text": "k475x k476x"}, {"text": "k481x k482x k483x k484x k485x"}]}, {"stack": [{"text": "k498x k499x k500x k501x k502x k503x k504x k505x", "keepTogether": true}, {"text": "k514x k515x k516x k517x k518x k519x k520x"}]}], []], "header": [[], [{"text": "h537y"}]]}}]}], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [{"qrcode": "HELLO"}], [], [], [{}, {"text": "k1008x k1009x k1010x k1011x"}], [], [{}, {}, {}, {"text": "k1055x"}], []]}}], "padding": 11}]}], "header": [{"stack": [], "height": 80}]};
  const r = await render(template);
  // Narrow cells break the words between letters ("k475 x"): their numbers are counted.
  const numbers = (text: string) => [...text.matchAll(/k(\d+)/g)].map((m) => m[1]).sort();
  assert.deepEqual(numbers(r.doc.pages.flatMap((p) => p.runs.map((run) => run.str)).join(' ')), numbers(JSON.stringify(template)), 'every word once');
});

test('when the page count does not settle and every page gets the tallest bands\' room, a shorter footer still sits on the bottom margin', async () => {
  const { layout, texts } = await import('./helpers/layout.ts');
  const band = (h: number, label: string) => ({ stack: [{ text: label }], height: h });
  const pages = layout({
    page: { size: [300, 400], margin: 20 },
    header: [{ if: { eq: ['$pages', 1] }, then: [band(150, 'H')] }],
    footer: [{ if: { eq: ['$page', '{{$pages}}'] }, then: [band(150, 'F')], else: [{ text: 'small footer' }] }],
    content: Array.from({ length: 20 }, (_, i) => ({ text: `line ${i}` })),
  });
  const small = pages.flatMap((p) => texts(p).filter((t) => t.text === 'small footer'));
  assert.ok(small.length >= 1);
  // Its one line ends on the bottom margin (380): its baseline is a few points above.
  for (const t of small) assert.ok(t.y > 370 && t.y < 380, `the small footer's baseline at ${t.y}, not on the bottom margin`);
});

test('a last page that holds its bands alone: a totals footer leaving less than 12 pt, and a letterhead and totals footer taller together than the page; the content keeps its full size elsewhere', async () => {
  const page = { size: [300, 400], margin: 20 };
  const band = (h: number, label: string) => ({ stack: [{ text: label }], height: h });
  const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `line ${i}` }));
  const bodyOf = (p: { runs: any[] }) => textLines(p).filter((l) => l.text.startsWith('line'));
  // Totals of 350 of the 360 pt: the content goes before the page that holds them.
  const totals = await render({ page, footer: [{ if: { eq: ['$page', '{{$pages}}'] }, then: [band(350, 'TOTALS')] }], content: lines(5) });
  assert.equal(totals.pages, 2);
  assert.equal(bodyOf(totals.doc.pages[0]).length, 5);
  assert.deepEqual(textLines(totals.doc.pages[1]).map((l) => l.text), ['TOTALS']);
  // Letterhead 200 + totals 165 overlap on a page of 360: two pages.
  const both = await render({ page, header: [{ if: { eq: ['$page', 1] }, then: [band(200, 'LETTERHEAD')] }], footer: [{ if: { eq: ['$page', '{{$pages}}'] }, then: [band(165, 'TOTALS')] }], content: lines(3) });
  assert.equal(both.pages, 2);
  assert.deepEqual(textLines(both.doc.pages[0]).map((l) => l.text), ['LETTERHEAD', 'line 0', 'line 1', 'line 2']);
  assert.deepEqual(textLines(both.doc.pages[1]).map((l) => l.text), ['TOTALS']);
  // Three pages with room to spare: an image at the end is drawn at its size, not shrunk to the room a one-page document would have.
  const png = `data:image/png;base64,${encodePng(100, 100, () => [255, 0, 0, 255]).toString('base64')}`;
  const long = await render({ page, header: [{ if: { eq: ['$page', 1] }, then: [band(200, 'LETTERHEAD')] }], footer: [{ if: { eq: ['$page', '{{$pages}}'] }, then: [band(147, 'TOTALS')] }], content: [...lines(40), { image: png, width: 80 }] });
  const images = (await pdfOperators(long.pdf)).flatMap((p) => p.images);
  assert.deepEqual(images.map((i) => Math.round(i.height)), [80]);
  // Bands of a last page that overlap are still the template's fault.
  await assert.rejects(
    render({ page, header: [{ if: { eq: ['$page', '{{$pages}}'] }, then: [band(200, 'H')] }], footer: [{ if: { eq: ['$page', '{{$pages}}'] }, then: [band(200, 'F')] }], content: lines(3) }),
    (e: { code?: string }) => e.code === 'TEMPLATE_INVALID',
  );
});

test('a table of contents lists the pages its headings are on when a header on page 3 only changes where tall images go', async () => {
  const tall = `data:image/png;base64,${encodePng(10, 100, () => [0, 0, 255, 255]).toString('base64')}`;
  for (const h of [100, 250]) {
    const sections = Array.from({ length: 6 }, (_, i) => [{ text: `Section ${i + 1}`, role: 'h1' }, { image: tall, width: 100 }]).flat();
    const r = await render({ page: { size: [300, 400], margin: 20 }, header: [{ if: { eq: ['$page', 3] }, then: [{ stack: [{ text: 'P3' }], height: h }] }], content: [{ toc: {} }, ...sections] });
    const listed = new Map<string, number>();
    for (const l of textLines(r.doc.pages[0])) {
      const m = /^(Section \d+)\D+(\d+)$/.exec(l.text);
      if (m) listed.set(m[1], Number(m[2]));
    }
    assert.equal(listed.size, 6, `header ${h}: six entries`);
    r.doc.pages.forEach((p, i) => {
      for (const l of textLines(p)) if (/^Section \d+$/.test(l.text)) assert.equal(listed.get(l.text), i + 1, `header ${h}: ${l.text} is on page ${i + 1}`);
    });
  }
});

test('an image in a table row measured for a typical page stays above a footer shown only on short documents ($pages < 4)', async () => {
  const tall = `data:image/png;base64,${encodePng(100, 1000, () => [0, 0, 255, 255]).toString('base64')}`;
  const square = `data:image/png;base64,${encodePng(100, 100, () => [0, 255, 0, 255]).toString('base64')}`;
  const r = await render({
    page: { size: [400, 300], margin: 20 },
    footer: [{ if: { lt: ['$pages', 4] }, then: [{ stack: [{ text: 'FTR0' }], height: 14, backgroundColor: '#ffcccc' }] }, { text: 'PN {{$page}}/{{$pages}}', fontSize: 6 }],
    content: [
      { toc: {} },
      { table: { columns: ['*', 50], header: [['TH', 'x']], rows: [['C1', 'x']] } },
      { text: 'C2 heading', role: 'h1' },
      { table: { columns: ['*', 60], header: [['TH', 'x'], ['TH2', 'y']], rows: [['C3 x', { image: tall }], ['C4 x', { image: square }]] } },
      { text: 'C5 heading', role: 'h1' },
    ],
  });
  assert.ok(r.pages < 4);
  const ops = await pdfOperators(r.pdf);
  ops.forEach((p, i) => {
    const band = p.filledBoxes.find((b) => b.width > 100);
    assert.ok(band, `page ${i + 1} has the footer band`);
    for (const img of p.images) assert.ok(img.y + img.height <= band!.y + 0.5, `page ${i + 1}: image down to ${img.y + img.height}, band from ${band!.y}`);
  });
});
