/**
 * Platen Studio: template JSON and sample data JSON side by side with the rendered pages, which
 * follow the text as it is typed: a change is rendered at once when no render started in the last
 * 150 ms, else 150 ms after the last change (so typing a word renders its first letter and then the
 * word); a result older than the one on screen is dropped. Problems are marked at their JSON path; warnings and the template's data
 * fields are listed. Templates of the key's team can be opened, saved and published as versions.
 */
import invoiceData from '../../examples/invoice/data.json';
import invoiceTemplate from '../../examples/invoice/template.json';
import { Api, ApiFailure, type FieldError, type Preview } from './api.ts';
import { createEditor, relint, reveal, setText, type Problem, type ProblemSource } from './editors.ts';
import { locate, parsePath } from './json-path.ts';
import { drawPages } from './pages.ts';
import type { EditorView } from '@codemirror/view';

/** Quiet time after the last change before a preview is requested while changes keep coming, ms. */
const DEBOUNCE_MS = 150;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const pretty = (v: unknown) => JSON.stringify(v, null, 2) + '\n';

/** The server's problems for one text of an editor. */
class ServerProblems implements ProblemSource {
  text: string | null = null;
  problems: Problem[] = [];
  set(text: string, problems: Problem[]): void {
    this.text = text;
    this.problems = problems;
  }
  problemsFor(text: string): Problem[] | null {
    return text === this.text ? this.problems : null;
  }
}

/** One entry of the Problems list: where it is and what it says. */
interface ListedProblem {
  editor: 'template' | 'data' | null;
  path: string;
  message: string;
  from?: number;
  to?: number;
}

const api = new Api();
const templateProblems = new ServerProblems();
const dataProblems = new ServerProblems();
let templateView: EditorView;
let dataView: EditorView;
let openedId: string | null = null;
let savedText: string | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
let lastChangeAt = performance.now();
let lastRenderAt = -Infinity;
let started = 0;
let shown = 0;
let renders = 0;

function status(message: string, kind: 'info' | 'ok' | 'error' = 'info'): void {
  const el = $('status');
  el.textContent = message;
  el.dataset.kind = kind;
}

/** Render after a change: at once when idle, else once the changes pause (`now`: at once anyway). */
function schedule(now = false): void {
  lastChangeAt = performance.now();
  document.body.dataset.lastChange = String(lastChangeAt);
  clearTimeout(timer);
  if (now || lastChangeAt - lastRenderAt >= DEBOUNCE_MS) void render();
  else timer = setTimeout(() => void render(), DEBOUNCE_MS);
}

/** Field faults of the server mapped into the editors: `definition.<path>` and `data.<path>`. */
function placeErrors(errors: FieldError[], templateText: string, dataText: string): ListedProblem[] {
  const listed: ListedProblem[] = [];
  const forTemplate: Problem[] = [];
  const forData: Problem[] = [];
  for (const e of errors) {
    const m = /^(definition|data)(?:$|\.|(?=\[))(.*)$/.exec(e.path);
    if (!m) {
      listed.push({ editor: null, path: e.path, message: e.message });
      continue;
    }
    const editor = m[1] === 'definition' ? 'template' : 'data';
    const view = editor === 'template' ? templateView : dataView;
    const range = locate(view.state, parsePath(m[2]), /^unknown key/.test(e.message));
    (editor === 'template' ? forTemplate : forData).push({ ...range, message: e.message, severity: 'error' });
    listed.push({ editor, path: m[2] || '(root)', message: e.message, ...range });
  }
  templateProblems.set(templateText, forTemplate);
  dataProblems.set(dataText, forData);
  return listed;
}

function showProblems(list: ListedProblem[]): void {
  const ul = $('problems');
  ul.replaceChildren(
    ...list.map((p) => {
      const li = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'problem';
      const where = document.createElement('code');
      where.textContent = p.editor === 'data' ? `data ${p.path}` : p.path;
      button.append(where, ` ${p.message}`);
      if (p.editor && p.from !== undefined) {
        const view = p.editor === 'template' ? templateView : dataView;
        button.addEventListener('click', () => reveal(view, p.from!, p.to!));
      } else {
        button.disabled = true;
      }
      li.append(button);
      return li;
    }),
  );
  $('problems-count').textContent = String(list.length);
  document.body.dataset.problems = String(list.length);
}

function showWarnings(warnings: Preview['warnings']): void {
  $('warnings').replaceChildren(
    ...warnings.map((w) => {
      const li = document.createElement('li');
      li.textContent = typeof w === 'string' ? w : `${w.path ? `${w.path}: ` : ''}${w.message}`;
      return li;
    }),
  );
  $('warnings-count').textContent = String(warnings.length);
}

function showFields(fields: Preview['fields']): void {
  $('fields').replaceChildren(
    ...fields.map((f) => {
      const li = document.createElement('li');
      const name = document.createElement('code');
      name.textContent = f.name;
      const type = document.createElement('span');
      type.className = 'type';
      type.textContent = f.type;
      li.append(name, ' ', type);
      return li;
    }),
  );
  $('fields-count').textContent = String(fields.length);
}

/** A JSON syntax error of one editor, for the Problems list (the editor marks it itself). */
function syntaxProblem(editor: 'template' | 'data', text: string): ListedProblem | null {
  try {
    JSON.parse(text);
    return null;
  } catch (e) {
    return { editor: null, path: editor === 'template' ? 'template' : 'data', message: `JSON syntax: ${(e as Error).message}` };
  }
}

/** Ask for a preview of the editors' current texts and show it, unless a newer one is shown. */
async function render(): Promise<void> {
  const seq = ++started;
  const since = lastChangeAt;
  lastRenderAt = performance.now();
  const templateText = templateView.state.doc.toString();
  const dataText = dataView.state.doc.toString();
  const syntax = [syntaxProblem('template', templateText), syntaxProblem('data', dataText)].filter((p) => p !== null);
  if (syntax.length > 0) {
    shown = seq;
    showProblems(syntax);
    $('preview-info').textContent = 'Fix the JSON syntax to render';
    return;
  }
  if (!api.key) {
    shown = seq;
    showProblems([]);
    $('preview-info').textContent = 'Enter an API key to render previews (the editor checks the template against the JSON Schema meanwhile)';
    return;
  }
  const requested = performance.now();
  try {
    const preview = await api.preview(JSON.parse(templateText), JSON.parse(dataText));
    const fetchedMs = performance.now() - requested;
    if (seq < shown) return;
    shown = seq;
    templateProblems.set(templateText, []);
    dataProblems.set(dataText, []);
    relint(templateView);
    relint(dataView);
    showProblems([]);
    showWarnings(preview.warnings);
    showFields(preview.fields);
    let firstPageMs = 0;
    let sinceChange = 0;
    const pages = await drawPages(preview.pdf, $('pages'), () => {
      firstPageMs = performance.now() - requested;
      sinceChange = performance.now() - since;
    });
    if (pages === null || seq < shown) return;
    renders++;
    const el = $('pages');
    el.dataset.renders = String(renders);
    el.dataset.pages = String(pages);
    el.dataset.requestMs = firstPageMs.toFixed(1);
    el.dataset.fetchMs = fetchedMs.toFixed(1);
    el.dataset.changeMs = sinceChange.toFixed(1);
    // The change this image shows: equal to body[data-last-change] once the latest one is on screen.
    el.dataset.changeAt = String(since);
    $('preview-info').textContent = `${pages} page${pages === 1 ? '' : 's'} · render ${preview.renderMs.toFixed(0)} ms · on screen ${firstPageMs.toFixed(0)} ms after the request`;
    document.body.dataset.state = 'ok';
  } catch (e) {
    if (seq < shown) return;
    shown = seq;
    document.body.dataset.state = 'error';
    if (!(e instanceof ApiFailure)) {
      showProblems([{ editor: null, path: '', message: `preview failed: ${(e as Error).message}` }]);
      return;
    }
    if (e.errors.length > 0) {
      showProblems(placeErrors(e.errors, templateText, dataText));
    } else if (e.renderError) {
      const path = e.renderError.path ?? '';
      const onData = path === 'data' || path.startsWith('data.') || path.startsWith('data[');
      showProblems(placeErrors([{ path: path ? (onData ? path : `definition.${path}`) : 'definition', message: `${e.renderError.code}: ${e.renderError.message}` }], templateText, dataText));
    } else {
      templateProblems.set(templateText, []);
      dataProblems.set(dataText, []);
      showProblems([{ editor: null, path: e.code, message: e.detail }]);
    }
    relint(templateView);
    relint(dataView);
    $('preview-info').textContent = e.status === 401 ? 'The API key was refused' : e.status === 429 ? 'Preview rate limit reached; wait a moment' : 'The template has problems (see Problems)';
  }
}

async function loadTemplates(): Promise<void> {
  const select = $<HTMLSelectElement>('template-select');
  try {
    const list = (await api.templates()).filter((t) => t.type === 'pdf');
    const options = list.map((t) => new Option(`${t.name} (${t.id})`, t.id));
    select.replaceChildren(new Option('New template (unsaved)', ''), ...options);
    if (openedId) select.value = openedId;
    for (const id of ['template-select', 'open', 'save', 'publish']) ($(id) as HTMLButtonElement).disabled = false;
    status(`Key accepted: ${list.length} template${list.length === 1 ? '' : 's'}`, 'ok');
  } catch (e) {
    for (const id of ['template-select', 'open', 'save', 'publish']) ($(id) as HTMLButtonElement).disabled = true;
    status(e instanceof ApiFailure && e.status === 401 ? 'That API key was refused' : `Could not list templates: ${(e as Error).message}`, 'error');
  }
}

async function open(): Promise<void> {
  const id = $<HTMLSelectElement>('template-select').value;
  if (!id) {
    openedId = null;
    savedText = null;
    $<HTMLInputElement>('template-name').value = '';
    status('New template: save it to store it');
    return;
  }
  try {
    const t = await api.template(id);
    openedId = t.id;
    const text = pretty(t.definition);
    savedText = text;
    setText(templateView, text);
    $<HTMLInputElement>('template-name').value = t.name;
    status(`Opened "${t.name}" (${t.id})`, 'ok');
  } catch (e) {
    status(`Could not open the template: ${(e as Error).message}`, 'error');
  }
}

/** Save the draft (create the template the first time). @returns whether it was saved. */
async function save(): Promise<boolean> {
  const text = templateView.state.doc.toString();
  let definition: unknown;
  try {
    definition = JSON.parse(text);
  } catch {
    status('Fix the JSON syntax before saving', 'error');
    return false;
  }
  const name = $<HTMLInputElement>('template-name').value.trim() || 'Untitled';
  try {
    const t = openedId ? await api.update(openedId, name, definition) : await api.create(name, definition);
    const created = openedId === null;
    openedId = t.id;
    savedText = text;
    $<HTMLInputElement>('template-name').value = t.name;
    if (created) await loadTemplates();
    status(`Saved the draft of "${t.name}" (${t.id})`, 'ok');
    return true;
  } catch (e) {
    if (e instanceof ApiFailure && e.errors.length > 0) {
      showProblems(placeErrors(e.errors, text, dataView.state.doc.toString()));
      relint(templateView);
      status('Not saved: the template has problems (see Problems)', 'error');
    } else {
      status(`Not saved: ${(e as Error).message}`, 'error');
    }
    return false;
  }
}

async function publish(): Promise<void> {
  if ((openedId === null || templateView.state.doc.toString() !== savedText) && !(await save())) return;
  const tag = $<HTMLInputElement>('version-tag').value.trim() || undefined;
  try {
    const v = await api.publish(openedId!, tag);
    $<HTMLInputElement>('version-tag').value = '';
    status(`Published version ${v.version}${v.tag ? ` (${v.tag})` : ''} of ${openedId}`, 'ok');
  } catch (e) {
    status(`Not published: ${(e as Error).message}`, 'error');
  }
}

function selectTab(tab: HTMLElement): void {
  for (const t of document.querySelectorAll<HTMLElement>('[role=tab]')) {
    const on = t === tab;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute('aria-controls')!).hidden = !on;
  }
  tab.focus();
}

function wire(): void {
  const keyInput = $<HTMLInputElement>('api-key');
  keyInput.value = api.key;
  $('key-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    api.setKey(keyInput.value);
    if (api.key) void loadTemplates();
    schedule(true);
  });
  $('open').addEventListener('click', () => void open());
  $('save').addEventListener('click', () => void save());
  $('publish').addEventListener('click', () => void publish());
  const tabs = [...document.querySelectorAll<HTMLElement>('[role=tab]')];
  tabs.forEach((tab, i) => {
    tab.addEventListener('click', () => selectTab(tab));
    tab.addEventListener('keydown', (ev) => {
      if (ev.key === 'ArrowRight' || ev.key === 'ArrowLeft') selectTab(tabs[(i + (ev.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]);
    });
  });
  document.addEventListener('keydown', (ev) => {
    if (ev.altKey && !ev.ctrlKey && !ev.metaKey) {
      const target = { Digit1: () => templateView.focus(), Digit2: () => dataView.focus(), Digit3: () => $('pages').focus() }[ev.code];
      if (target) {
        ev.preventDefault();
        target();
      }
    }
    if ((ev.ctrlKey || ev.metaKey) && ev.key === 's') {
      ev.preventDefault();
      void save();
    }
  });
}

async function boot(): Promise<void> {
  const schema = (await (await fetch('/v1/schemas/template.json')).json()) as Record<string, unknown>;
  const keys = [
    { key: 'Mod-s', run: () => (void save(), true) },
    { key: 'Mod-Enter', run: () => (schedule(true), true) },
  ];
  templateView = createEditor({ parent: $('template-editor'), doc: pretty(invoiceTemplate), schema, problems: templateProblems, offline: () => !api.key, onChange: () => schedule(), keys, label: 'Template JSON' });
  dataView = createEditor({ parent: $('data-editor'), doc: pretty(invoiceData), problems: dataProblems, offline: () => !api.key, onChange: () => schedule(), keys, label: 'Sample data JSON' });
  wire();
  if (api.key) void loadTemplates();
  schedule(true);
  document.body.dataset.ready = 'true';
}

void boot();
