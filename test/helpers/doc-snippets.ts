/**
 * Code blocks of a Markdown page, so tests can run documentation snippets exactly as written.
 * A block is named by a comment on its first line: `// verify-webhook.mjs` or `# platen_webhook.py`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CodeBlock {
  lang: string;
  /** The file name from the first-line comment, or '' when there is none. */
  name: string;
  code: string;
}

/** Every fenced block (```lang ... ```) of the Markdown file at `path`, in order. */
export function codeBlocks(path: string): CodeBlock[] {
  const md = readFileSync(path, 'utf8');
  const blocks: CodeBlock[] = [];
  for (const m of md.matchAll(/^```([\w-]*)\n([\s\S]*?)^```\s*$/gm)) {
    const code = m[2];
    const first = code.split('\n', 1)[0];
    const name = /^(?:\/\/|#)\s*([\w.-]+\.(?:mjs|js|py))\s*$/.exec(first)?.[1] ?? '';
    blocks.push({ lang: m[1], name, code });
  }
  return blocks;
}

/** Write the named blocks into `dir` under their names. @throws when one of `names` is missing. */
export function writeNamedBlocks(path: string, dir: string, names: string[]): void {
  const blocks = codeBlocks(path);
  for (const name of names) {
    const block = blocks.find((b) => b.name === name);
    if (!block) throw new Error(`${path} has no code block named ${name}`);
    writeFileSync(join(dir, name), block.code);
  }
}
