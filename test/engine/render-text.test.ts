/**
 * Text: alignment, breaking of long words, placeholders and filters, inline spans (fonts, links,
 * decoration) and justification, read back from the rendered PDF.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { find, linesOf } from '../helpers/pdf.ts';
import { pdfAnnotations, textLines } from '../helpers/pdfops.ts';
import { NOW, render } from '../helpers/render.ts';

const A4_WIDTH = 595.28;

test('a right-aligned paragraph ends at the page width minus the right margin', async () => {
  const margin = [30, 50, 30, 70]; // top, right, bottom, left
  const r = await render({ page: { size: 'A4', margin }, content: [{ text: 'Amount due', textAlign: 'right' }] });
  const [run] = find(r.doc.pages[0], 'Amount due');
  assert.ok(run, 'text present');
  assert.ok(Math.abs(run.x + run.width - (A4_WIDTH - margin[1])) < 0.5, `right edge ${run.x + run.width}, expected ${A4_WIDTH - margin[1]}`);
});

test('a centred paragraph is centred between the margins', async () => {
  const margin = [30, 50, 30, 70];
  const r = await render({ page: { size: 'A4', margin }, content: [{ text: 'Centred title', textAlign: 'center' }] });
  const [run] = find(r.doc.pages[0], 'Centred title');
  assert.ok(run, 'text present');
  const centre = margin[3] + (A4_WIDTH - margin[1] - margin[3]) / 2;
  assert.ok(Math.abs(run.x + run.width / 2 - centre) < 0.5, `centre ${run.x + run.width / 2}, expected ${centre}`);
});

test('a left-aligned paragraph starts at the left margin', async () => {
  const r = await render({ page: { size: 'A4', margin: [30, 50, 30, 70] }, content: [{ text: 'Left' }] });
  const [run] = find(r.doc.pages[0], 'Left');
  assert.ok(Math.abs(run.x - 70) < 0.5, `x ${run.x}`);
});

test('a word with no break opportunity in a 60 pt table column is broken between characters', async () => {
  const word = 'Donaudampfschifffahrtsgesellschaftskapitaenswitwe1234567890';
  const r = await render({
    page: { size: 'A4', margin: 40 },
    content: [{ table: { columns: [60], borders: 'none', cellPadding: 0, rows: [[word]] } }],
  });
  const lines = textLines(r.doc.pages[0]);
  assert.ok(lines.length >= 3, `expected several lines, got ${lines.map((l) => l.text).join(' | ')}`);
  for (const l of lines) {
    assert.ok(l.left >= 40 - 0.5, `line "${l.text}" starts at ${l.left}`);
    assert.ok(l.right - 40 <= 60 + 0.5, `line "${l.text}" is ${l.right - 40} wide, more than 60`);
  }
  assert.equal(lines.map((l) => l.text).join(''), word);
});

test('a word with no break opportunity in a 60 pt column of a columns node is broken between characters', async () => {
  const word = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const r = await render({
    page: { size: 'A4', margin: 40 },
    content: [{ columns: [{ width: 60, content: [{ text: word }] }, { width: '*', content: [] }] }],
  });
  const lines = textLines(r.doc.pages[0]);
  assert.ok(lines.length >= 3, `expected several lines, got ${lines.map((l) => l.text).join(' | ')}`);
  for (const l of lines) assert.ok(l.right - 40 <= 60 + 0.5, `line "${l.text}" is ${l.right - 40} wide`);
  assert.equal(lines.map((l) => l.text).join(''), word);
});

test('a missing variable renders as the empty string', async () => {
  const r = await render({ content: [{ text: 'Hello {{nobody}}!' }, { text: 'Deep [{{a.b.c[3].d}}]' }] }, { a: { b: null } });
  assert.deepEqual(linesOf(r.doc.pages[0].runs), ['Hello !', 'Deep []']);
});

test('<<name>> works like {{name}}, with filters too', async () => {
  const r = await render(
    { content: [{ text: 'A: {{name}} / B: <<name>> / C: <<name | upper>> / D: <<items[1].label>>' }] },
    { name: 'Ada', items: [{ label: 'x' }, { label: 'second' }] },
  );
  assert.deepEqual(linesOf(r.doc.pages[0].runs), ['A: Ada / B: Ada / C: ADA / D: second']);
});

test('filters render: currency, number, date, upper, lower, default', async () => {
  const data = { total: 1234.5, qty: 3.14159, big: 1234567.891, issued: '2025-03-14', name: 'straße', code: 'ACME', note: '' };
  const r = await render(
    {
      metadata: { language: 'en' },
      content: [
        { text: 'currency={{total | currency:"EUR"}}' },
        { text: 'usd={{total | currency}}' },
        { text: 'number2={{qty | number:2}}' },
        { text: 'number={{big | number}}' },
        { text: 'date={{issued | date:"yyyy-MM-dd"}}' },
        { text: "long={{issued | date:'d MMMM yyyy'}}" },
        { text: 'upper={{name | upper}}' },
        { text: 'lower={{code | lower}}' },
        { text: 'default={{note | default:"-"}} missing={{nothing | default:"n/a"}}' },
        { text: 'now={{$now | date:"yyyy-MM-dd"}}' },
      ],
    },
    data,
  );
  const expected = [
    `currency=${new Intl.NumberFormat('en', { style: 'currency', currency: 'EUR' }).format(data.total)}`,
    `usd=${new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(data.total)}`,
    `number2=${new Intl.NumberFormat('en', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(data.qty)}`,
    `number=${new Intl.NumberFormat('en', { maximumFractionDigits: 3 }).format(data.big)}`,
    'date=2025-03-14',
    'long=14 March 2025',
    `upper=${data.name.toUpperCase()}`,
    'lower=acme',
    'default=- missing=n/a',
    `now=${NOW.toISOString().slice(0, 10)}`,
  ];
  assert.deepEqual(linesOf(r.doc.pages[0].runs), expected);
});

test('bold and italic spans use different fonts from the plain text and from each other', async () => {
  const r = await render({
    content: [{ text: ['plain ', { text: 'BOLDPART', fontWeight: 'bold' }, ' middle ', { text: 'ITALICPART', fontStyle: 'italic' }, ' tail'] }],
  });
  const page = r.doc.pages[0];
  const font = (s: string) => {
    const run = page.runs.find((x) => x.str.includes(s));
    assert.ok(run, `run with "${s}"`);
    return run.fontName;
  };
  const plain = font('plain');
  const bold = font('BOLDPART');
  const italic = font('ITALICPART');
  assert.notEqual(bold, plain);
  assert.notEqual(italic, plain);
  assert.notEqual(bold, italic);
  assert.equal(font('middle'), plain);
  assert.equal(linesOf(page.runs)[0], 'plain BOLDPART middle ITALICPART tail');
});

test('a link span produces a Link annotation with the URL over the span', async () => {
  const url = 'https://example.com/pay?invoice=42&x=1';
  const r = await render(
    {
      content: [
        {
          text: [
            'Please ',
            // Bold, so that the span is its own text run when read back.
            { text: 'pay online', link: '{{payLink}}', fontWeight: 'bold', color: '#1f4e79', textDecoration: 'underline' },
            ' today.',
          ],
        },
      ],
    },
    { payLink: url },
  );
  const annots = await pdfAnnotations(r.pdf);
  const links = annots[0].filter((a) => a.subtype === 'Link');
  assert.equal(links.length, 1, JSON.stringify(annots));
  assert.equal(links[0].url, url);
  // The annotation covers the span's text, and only it.
  const span = find(r.doc.pages[0], 'pay online')[0];
  assert.ok(span, 'span text present');
  const [x1, y1, x2, y2] = links[0].rect;
  assert.ok(y1 < span.y && span.y < y2, `link rect ${links[0].rect} does not contain the baseline ${span.y}`);
  assert.ok(Math.abs(x1 - span.x) < 0.5, `link starts at ${x1}, span at ${span.x}`);
  assert.ok(Math.abs(x2 - (span.x + span.width)) < 0.5, `link ends at ${x2}, span at ${span.x + span.width}`);
  assert.equal(linesOf(r.doc.pages[0].runs)[0], 'Please pay online today.');
});

test('a link on a whole text node links the text', async () => {
  const r = await render({ content: [{ text: 'mail us', link: 'mailto:office@example.com' }] });
  const annots = await pdfAnnotations(r.pdf);
  assert.deepEqual(annots[0].map((a) => [a.subtype, a.url]), [['Link', 'mailto:office@example.com']]);
});

test('underlined and struck-through text still extracts as text', async () => {
  const r = await render({
    content: [{ text: ['Before ', { text: 'underlined words', textDecoration: 'underline' }, ' and ', { text: 'struck', textDecoration: 'line-through' }, ' after.'] }],
  });
  assert.deepEqual(linesOf(r.doc.pages[0].runs), ['Before underlined words and struck after.']);
});

test('justify: every line but the last ends at the right edge; the last does not', async () => {
  const margin = 50;
  const text =
    'Justified text is stretched so that every line but the last fills the measure exactly, ' +
    'by widening the spaces between words. This paragraph is long enough to wrap onto several lines ' +
    'of a narrow page, so there are a few full lines to check and a short last line at the end.';
  const r = await render({ page: { size: [320, 600], margin }, content: [{ text, textAlign: 'justify' }] });
  const lines = textLines(r.doc.pages[0]);
  assert.ok(lines.length >= 4, `lines: ${lines.map((l) => l.text).join(' | ')}`);
  const right = 320 - margin;
  for (const l of lines.slice(0, -1)) {
    assert.ok(Math.abs(l.left - margin) < 0.5, `line "${l.text}" starts at ${l.left}`);
    assert.ok(Math.abs(l.right - right) < 1, `line "${l.text}" ends at ${l.right}, expected ${right}`);
  }
  const last = lines[lines.length - 1];
  assert.ok(last.right < right - 1, `last line "${last.text}" ends at ${last.right}`);
  assert.equal(lines.map((l) => l.text).join(' '), text);
});

test('justify: a line ending in \\n is not stretched', async () => {
  const margin = 50;
  const r = await render({
    page: { size: [320, 600], margin },
    content: [{ text: 'Short first line\nand then a much longer second paragraph line that wraps around onto another line and ends.', textAlign: 'justify' }],
  });
  const lines = textLines(r.doc.pages[0]);
  assert.equal(lines[0].text, 'Short first line');
  assert.ok(lines[0].right < 320 - margin - 1, `forced break line ends at ${lines[0].right}`);
  assert.ok(Math.abs(lines[1].right - (320 - margin)) < 1, `wrapped line ends at ${lines[1].right}`);
});

test('\\n in the text starts a new line', async () => {
  const r = await render({ content: [{ text: 'one\ntwo\nthree' }] });
  assert.deepEqual(linesOf(r.doc.pages[0].runs), ['one', 'two', 'three']);
});
