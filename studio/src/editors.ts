/**
 * The two CodeMirror 6 editors: template JSON (completion and hover help from the DSL's JSON
 * Schema) and sample data JSON. Their problems come from one lint source per editor: JSON syntax
 * errors at once; then the server's validation (the same as saving) for the text it was given;
 * without an API key, the JSON Schema's own validation.
 */
import type { CompletionContext } from '@codemirror/autocomplete';
import { json, jsonLanguage, jsonParseLinter } from '@codemirror/lang-json';
import { lintGutter, linter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, hoverTooltip, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { disableErrorLogging } from 'best-effort-json-parser';
import { jsonCompletion, jsonSchemaHover, jsonSchemaLinter, stateExtensions } from 'codemirror-json-schema';

// The tolerant parser behind completion logs every half-typed document to the console otherwise.
disableErrorLogging();

/** A problem the server reported, for the text it was computed on. */
export interface Problem {
  from: number;
  to: number;
  message: string;
  severity: 'error' | 'warning';
}

/** What an editor shows besides its own syntax errors: the server's problems for one text. */
export interface ProblemSource {
  /** Problems for exactly this text, or null when none are known for it (use the local checks). */
  problemsFor(text: string): Problem[] | null;
}

export interface EditorOptions {
  parent: HTMLElement;
  doc: string;
  /** The DSL's JSON Schema: completion, hover help and offline validation (template editor only). */
  schema?: Record<string, unknown>;
  problems: ProblemSource;
  /** Whether to check against the JSON Schema when the server's problems are unknown (no API key). */
  offline: () => boolean;
  /** Called after every change of the text. */
  onChange: () => void;
  /** Extra key bindings (save, render now). */
  keys: { key: string; run: () => boolean }[];
  label: string;
}

const parseLint = jsonParseLinter();

/**
 * Lint: syntax errors; else the server's problems for this text; else, offline, the JSON Schema's
 * (when the editor has one); else nothing until the server answers.
 */
function lintSource(problems: ProblemSource, schemaLint: ((view: EditorView) => Diagnostic[]) | null, offline: () => boolean) {
  return (view: EditorView): Diagnostic[] => {
    const syntax = parseLint(view);
    if (syntax.length > 0) return syntax;
    const known = problems.problemsFor(view.state.doc.toString());
    if (known !== null) return known.map((p) => ({ ...p, source: 'Platen' }));
    return schemaLint && offline() ? schemaLint(view).map(plainSchemaDiagnostic) : [];
  };
}

/**
 * A JSON Schema diagnostic as plain text; "does not match any schema of [...]" (a value of none of
 * the allowed shapes, which lists every alternative's $ref) said briefly.
 */
function plainSchemaDiagnostic(d: Diagnostic): Diagnostic {
  const message = /does not match any schema/.test(d.message)
    ? 'not one of the shapes allowed here (hover for help; with an API key, the server names the exact fault)'
    : d.message;
  return { from: d.from, to: d.to, severity: d.severity, message, source: 'JSON Schema' };
}

const sources = new WeakMap<EditorView, (view: EditorView) => Diagnostic[]>();

const schemaCompletion = jsonCompletion();
/** A key being typed: `{"fo`, `, "fo`, or `"fo` at the start of a line. */
const TYPING_KEY = /(^|[{,])\s*"[^"]*$/;

/**
 * Completion from the JSON Schema while a key is typed, and anywhere on request (Ctrl+Space).
 * Working it out for every keystroke inside a text value would hold up the preview (the schema
 * is resolved against the whole document each time).
 */
function keyCompletion(ctx: CompletionContext) {
  if (ctx.explicit) return schemaCompletion(ctx);
  const line = ctx.state.doc.lineAt(ctx.pos);
  return TYPING_KEY.test(line.text.slice(0, ctx.pos - line.from)) ? schemaCompletion(ctx) : null;
}

/** Create an editor. */
export function createEditor(o: EditorOptions): EditorView {
  const source = lintSource(o.problems, o.schema ? jsonSchemaLinter() : null, o.offline);
  const extensions: Extension[] = [
    basicSetup,
    json(),
    keymap.of(o.keys.map((k) => ({ key: k.key, run: k.run, preventDefault: true }))),
    linter(source, { delay: 100 }),
    lintGutter(),
    EditorView.updateListener.of((u) => {
      if (u.docChanged) o.onChange();
    }),
    EditorView.contentAttributes.of({ 'aria-label': o.label }),
  ];
  if (o.schema) {
    extensions.push(jsonLanguage.data.of({ autocomplete: keyCompletion }), hoverTooltip(jsonSchemaHover()), stateExtensions(o.schema as Parameters<typeof stateExtensions>[0]));
  }
  const view = new EditorView({ parent: o.parent, state: EditorState.create({ doc: o.doc, extensions }) });
  sources.set(view, source);
  return view;
}

/** Show an editor's problems again now (the server's arrived). */
export function relint(view: EditorView): void {
  const source = sources.get(view);
  if (source) view.dispatch(setDiagnostics(view.state, source(view)));
}

/** Replace an editor's whole text. */
export function setText(view: EditorView, text: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}

/** Put the cursor on a range and scroll it into view. */
export function reveal(view: EditorView, from: number, to: number): void {
  view.dispatch({ selection: { anchor: from, head: to }, scrollIntoView: true });
  view.focus();
}
