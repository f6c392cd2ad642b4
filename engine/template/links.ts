/**
 * Internal links checked when a template is validated: a link written out as `"#id"` (no
 * placeholders) must name the `id` of some node of the template, else it is a fault at the link's
 * path. Links with placeholders are checked when rendering (warning LINK_UNRESOLVED). Headings
 * without an id get theirs when rendering (`_h1`, `_h2`, ... in document order), so links to
 * those are not checked here.
 */
import { hasPlaceholder } from './placeholders.ts';
import type { TemplateIssue } from './types.ts';

type Obj = Record<string, unknown>;

/** Faults of `def`'s literal internal links (a validated definition: plain JSON, bounded depth). */
export function linkIssues(def: Obj): TemplateIssue[] {
  const ids = new Set<string>();
  const links: { id: string; path: string }[] = [];
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
    if (typeof o.link === 'string' && o.link.startsWith('#') && !hasPlaceholder(o.link)) links.push({ id: o.link.slice(1), path: `${path}.link` });
    for (const [k, v] of Object.entries(o)) if (v !== null && typeof v === 'object') stack.push([v, `${path}.${k}`]);
  }
  const issues: TemplateIssue[] = [];
  for (const l of links) {
    if (ids.has(l.id) || /^_h\d+$/.test(l.id)) continue;
    issues.push({ path: l.path, message: `no node has the id ${JSON.stringify(l.id)} this link goes to (give a node "id": ${JSON.stringify(l.id)})` });
  }
  return issues.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
