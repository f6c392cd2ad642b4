/**
 * The image sources a render will need from outside: every `image` whose source is not a `data:`
 * URI (`https://...`, `asset:<id>`), so that the service can fetch their bytes before the render
 * and pass them in (RenderOptions.images). Sources written in the template are read as they are;
 * those with placeholders (`"{{logo_url}}"`) are read from the content, header, footer and
 * background bound with the data (bands with page 1 of 1).
 */
import { bindNodes, TEMPLATE_PATH } from './bind.ts';
import { hasPlaceholder } from './placeholders.ts';
import type { Template } from './types.ts';

/** An image source and the template path of its first use (`content[2].image`). */
export interface ImageSourceUse {
  readonly src: string;
  readonly path: string;
}

/** Options of {@link imageSources}. */
export interface ImageSourceOptions {
  /** `$now` while binding. */
  readonly now: Date;
  /** Most nodes binding may produce (as the render's maxNodes). */
  readonly maxNodes?: number;
  readonly maxDepth?: number;
  /** Characters binding's filters and comparisons may go through (as the render's maxDataScan). */
  readonly maxDataScan?: number;
}

const isExternal = (src: string) => src !== '' && !/^data:/i.test(src);

/**
 * Every distinct image source of `template` bound with `data` that is not a `data:` URI, in the
 * order first used, with the path of that use. Binding faults are left to the render (which
 * reports them with its own error): the sources found until then are returned. An image in the
 * content under an `if` is listed only when the data takes its branch (a header's or footer's,
 * which may depend on `$page`, always); when binding the content fails, every such image is
 * listed, taken or not.
 */
export function imageSources(template: Template, data: unknown, options: ImageSourceOptions): ImageSourceUse[] {
  const found = new Map<string, string>();
  // Sources written under an `if` of the content: listed only when binding the content fails.
  const conditional = new Map<string, string>();
  let bound = false;
  // Every `image` string anywhere in the definition (watermarks and bands included); those under
  // an `if` of the content go to `conditional`: binding tells whether their branch is taken.
  const visit = (value: unknown, path: string, inContent: boolean, into: Map<string, string>): void => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => visit(v, `${path}[${i}]`, inContent, into));
    } else if (value && typeof value === 'object') {
      if (inContent && into === found && Object.hasOwn(value, 'if') && hasImage(value)) {
        bound = true;
        into = conditional;
      }
      for (const [key, v] of Object.entries(value)) {
        const p = path ? `${path}.${key}` : key;
        if (key === 'image' && typeof v === 'string') {
          if (hasPlaceholder(v)) bound = true;
          else if (isExternal(v) && !into.has(v)) into.set(v, p);
        } else visit(v, p, inContent || (path === '' && key === 'content'), into);
      }
    }
  };
  visit(template, '', false, found);
  if (bound) {
    for (const band of ['content', 'header', 'footer', 'background'] as const) {
      const nodes = template[band];
      if (!nodes || nodes.length === 0) continue;
      // The content is bound as a render binds it: without $page and $pages.
      const page = band === 'content' ? undefined : { page: 1, pages: 1 };
      try {
        const out = bindNodes(withImagesOnly(nodes) as typeof nodes, data ?? {}, { now: options.now, language: template.metadata?.language, page, path: band, maxNodes: options.maxNodes, maxDepth: options.maxDepth, maxDataScan: options.maxDataScan });
        collectBound(out, band, found);
      } catch {
        // The render reports the fault; meanwhile every image the content may draw is fetched.
        if (band === 'content') for (const [src, path] of conditional) if (!found.has(src)) found.set(src, path);
      }
    }
  }
  return [...found].map(([src, path]) => ({ src, path }));
}

/** Keys that make an object a node of the DSL. */
const NODE_KEYS = ['text', 'image', 'table', 'columns', 'stack', 'list', 'qrcode', 'barcode', 'line', 'spacer', 'pageBreak', 'each', 'if', 'toc'];
const EMPTY = { spacer: 0 };

/** Whether `value` holds an `image` string anywhere. */
function hasImage(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasImage);
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if ((k === 'image' && typeof v === 'string') || hasImage(v)) return true;
  }
  return false;
}

/**
 * A copy of `value` in which every node without an image inside is an empty spacer, so that
 * binding it costs little (a table of 5,000 rows beside a logo is not bound). `each` and `if`
 * are kept (with spacers inside), so the bound nodes are as many, in the same places, as a
 * render binds: the paths of the images are the render's. Tables holding an image are kept whole
 * (their grid must stay as written); everything else keeps its shape.
 */
function withImagesOnly(value: unknown): unknown {
  const prune = (v: unknown) => v && typeof v === 'object' && !Array.isArray(v) && NODE_KEYS.some((k) => k in v) && !('each' in v) && !('if' in v) && !hasImage(v);
  if (Array.isArray(value)) return value.map((v) => (prune(v) ? EMPTY : withImagesOnly(v)));
  if (value && typeof value === 'object') {
    if ('table' in value) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = withImagesOnly(v);
    return out;
  }
  return value;
}

/**
 * Image sources of bound nodes (images are never inline, so only `image` keys of nodes), at the
 * template path binding kept on each node, as a render reports it.
 */
function collectBound(value: unknown, path: string, found: Map<string, string>): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) collectBound(value[i], `${path}[${i}]`, found);
  } else if (value && typeof value === 'object') {
    path = (value as { [TEMPLATE_PATH]?: string })[TEMPLATE_PATH] ?? path;
    for (const key of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (key === 'image' && typeof v === 'string') {
        if (isExternal(v) && !found.has(v)) found.set(v, `${path}.image`);
      } else if (v && typeof v === 'object') collectBound(v, `${path}.${key}`, found);
    }
  }
}
