/**
 * PDF/A-1 forbids transparency (ISO 19005-1, 6.4): a template that asks for it (an `opacity`
 * below 1 on a node, in a named style or on its watermark) cannot be written as PDF/A-1b. Such a
 * template is refused before anything is laid out, with the path of the first such opacity, rather
 * than drawn opaque behind the author's back. PDF/A-2b and -3b allow transparency.
 */
import type { Template } from '../template/types.ts';

/**
 * The template path of the first `opacity` below 1 in `template` (`content[2].opacity`,
 * `styles.faint.opacity`, `watermark.opacity`), or null when it has none. A watermark without an
 * opacity is translucent by default: its path is `watermark` then.
 */
export function transparencyPath(template: Template): string | null {
  const wm = (template as { watermark?: { opacity?: number } }).watermark;
  if (wm !== undefined && (wm.opacity ?? 0) < 1) return wm.opacity === undefined ? 'watermark' : 'watermark.opacity';
  const stack: [unknown, string][] = [];
  for (const key of ['styles', 'background', 'header', 'content', 'footer'] as const) {
    if (template[key] !== undefined) stack.push([template[key], key]);
  }
  // Depth first, in document order (the definition was validated: bounded depth, plain JSON).
  stack.reverse();
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    const entries: [unknown, string][] = Array.isArray(value)
      ? value.map((v, i) => [v, `${path}[${i}]`])
      : Object.entries(value).map(([k, v]) => [v, `${path}.${k}`]);
    for (const [v, p] of entries) if (p.endsWith('.opacity') && typeof v === 'number' && v < 1) return p;
    for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i]);
  }
  return null;
}
