/**
 * Where a link may go: https/http URLs, mailto: and tel: addresses and "#id". A link written in
 * the template that goes anywhere else (javascript:, file:, data:, a bare host name) is refused
 * when the template is validated; one made by placeholders from the data is drawn without the
 * link, with a LINK_UNRESOLVED warning, so no PDF carries a javascript: or file: action.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderPdf } from '../../engine/index.ts';
import { parseTemplate } from '../../engine/template/schema.ts';
import { pdfAnnotations } from '../helpers/pdfops.ts';
import { NOW } from '../helpers/render.ts';

test('a written-out link to javascript:, file:, data: or a bare host is a template fault at its path', () => {
  for (const [link, hint] of [
    ['javascript:alert(1)', /"javascript:alert\(1\)" is none of these$/],
    ['  JavaScript:void(0)', /is none of these$/],
    ['file:///etc/passwd', /"file:\/\/\/etc\/passwd"/],
    ['data:text/html,<b>x</b>', /none of these/],
    ['www.example.com', /\(write https:\/\/ before it\)$/],
    ['https://', /none of these/],
  ] as const) {
    const r = parseTemplate({ content: [{ text: ['see ', { text: 'here', link }] }] });
    assert.equal(r.ok, false, link);
    if (!r.ok) {
      assert.equal(r.errors[0].path, 'content[0].text[1].link');
      assert.match(r.errors[0].message, hint);
    }
  }
  for (const link of ['https://example.com/a?b=1', 'HTTP://example.com', 'mailto:ada@example.com', 'tel:+441234', '#top', 'https://example.com/{{id}}', '{{url}}']) {
    assert.equal(parseTemplate({ content: [{ text: 'x', id: 'top', link }] }).ok, true, link);
  }
});

test('a link the data makes that goes nowhere a link may is drawn without the link, with LINK_UNRESOLVED once per place', async () => {
  const definition = {
    header: [{ text: 'head', link: '{{bad}}' }],
    content: [
      { text: 'js', link: '{{bad}}' },
      { text: ['ok ', { text: 'mail', link: 'mailto:{{mail}}' }, ' and ', { text: 'file', link: '{{file}}' }] },
      { text: 'web', link: '{{web}}' },
      { text: 'x\n'.repeat(150) },
    ],
  };
  const r = await renderPdf(definition, { bad: 'javascript:alert(1)', mail: 'ada@example.com', file: 'file:///etc/passwd', web: 'https://example.com/' }, { now: NOW });
  assert.ok(r.pages > 1);
  assert.deepEqual(
    r.warnings.map((w) => [w.code, w.path]),
    [
      ['LINK_UNRESOLVED', 'header[0]'],
      ['LINK_UNRESOLVED', 'content[0]'],
      ['LINK_UNRESOLVED', 'content[1]'],
    ],
  );
  assert.match(r.warnings[1].message, /"javascript:alert\(1\)" is none of these: drawn without the link$/);
  const uris = (await pdfAnnotations(r.pdf)).flat().map((a) => a.url ?? null);
  assert.deepEqual([...new Set(uris)].sort(), ['https://example.com/', 'mailto:ada@example.com']);
  assert.ok(!r.pdf.includes('javascript') && !r.pdf.includes('file:///'), 'no such action in the file');
});
