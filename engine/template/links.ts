/**
 * Links checked when a template is validated: a link written out (no placeholders) must be a
 * place a PDF link may go, an http(s) URL, a mailto: or tel: address, or `"#id"` naming the `id`
 * of some node of the template; else it is a fault at the link's path (a `javascript:` or
 * `file:` link would ask the reader's viewer to run or open something). Links with placeholders
 * are checked when rendering (warning LINK_UNRESOLVED, drawn without the link). Headings without
 * an id get theirs when rendering (`_h1`, `_h2`, ... in document order), so links to those are
 * not checked here.
 */
import { hasPlaceholder } from './placeholders.ts';
import type { TemplateIssue } from './types.ts';

type Obj = Record<string, unknown>;

const EXTERNAL_TARGET = /^(?:https?:\/\/[^\s]|mailto:|tel:)/i;

/** Whether a (bound, trimmed) link goes somewhere a PDF link may: "#id", http(s)://, mailto:, tel:. */
export function isLinkTarget(link: string): boolean {
  return link.startsWith('#') || EXTERNAL_TARGET.test(link);
}

/** Why `link` is no link target, for a fault or a warning. */
export function linkTargetFault(link: string): string {
  const shown = JSON.stringify(link.length > 60 ? `${link.slice(0, 57)}...` : link);
  return `a link goes to an https:// or http:// URL, a mailto: or tel: address, or "#id"; ${shown} is none of these${/^www\./i.test(link) ? ' (write https:// before it)' : ''}`;
}

/** Faults of `def`'s literal internal links (a validated definition: plain JSON, bounded depth). */
export function linkIssues(def: Obj): TemplateIssue[] {
  const ids = new Set<string>();
  const links: { id: string; path: string }[] = [];
  const faults: TemplateIssue[] = [];
  const stack: [unknown, string][] = [];
  for (const key of ['background', 'header', 'content', 'footer']) if (def[key] !== undefined) stack.push([def[key], key]);
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push([v, `${path}[${i}]`]));
      continue;
    }
    const o = value as Obj;
    if (typeof o.id === 'string') ids.add(o.id);
    if (typeof o.link === 'string' && !hasPlaceholder(o.link)) {
      const link = o.link.trim();
      if (link.startsWith('#')) links.push({ id: link.slice(1), path: `${path}.link` });
      else if (link !== '' && !isLinkTarget(link)) faults.push({ path: `${path}.link`, message: linkTargetFault(link) });
    }
    for (const [k, v] of Object.entries(o)) if (v !== null && typeof v === 'object') stack.push([v, `${path}.${k}`]);
  }
  const issues: TemplateIssue[] = faults;
  for (const l of links) {
    if (ids.has(l.id) || /^_h\d+$/.test(l.id)) continue;
    issues.push({ path: l.path, message: `no node has the id ${JSON.stringify(l.id)} this link goes to (give a node "id": ${JSON.stringify(l.id)})` });
  }
  return issues.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
