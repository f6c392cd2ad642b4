/** The public API as the studio uses it, with the API key the user gave (kept in sessionStorage only). */

export interface FieldError {
  path: string;
  message: string;
}

/** An error answer: `{code, detail, errors?, render_error?}`. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: FieldError[],
    readonly renderError: { code: string; message: string; path: string | null } | null,
  ) {
    super(detail);
  }
}

export interface Preview {
  pdf: Uint8Array;
  pages: number;
  warnings: (string | { message: string; path?: string })[];
  fields: { name: string; type: string }[];
  renderMs: number;
}

export interface TemplateSummary {
  id: string;
  name: string;
  type: 'pdf' | 'image';
}

export interface TemplateJson extends TemplateSummary {
  definition: unknown;
}

const KEY = 'platen.studio.apiKey';

export class Api {
  key: string = sessionStorage.getItem(KEY) ?? '';

  setKey(key: string): void {
    this.key = key.trim();
    if (this.key) sessionStorage.setItem(KEY, this.key);
    else sessionStorage.removeItem(KEY);
  }

  private async call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { 'x-api-key': this.key };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
    const text = await res.text();
    const json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    if (!res.ok) {
      throw new ApiFailure(
        res.status,
        String(json.code ?? res.status),
        String(json.detail ?? res.statusText),
        (json.errors as FieldError[] | undefined) ?? [],
        (json.render_error as ApiFailure['renderError']) ?? null,
      );
    }
    return json as T;
  }

  /** POST /v1/templates/preview with export_type "json". @throws ApiFailure */
  async preview(definition: unknown, data: unknown, signal?: AbortSignal): Promise<Preview> {
    const r = await this.call<{ pdf: string; pages: number; warnings: Preview['warnings']; fields: Preview['fields']; render_ms: number }>(
      'POST',
      '/v1/templates/preview',
      { definition, data, export_type: 'json' },
      signal,
    );
    const raw = atob(r.pdf);
    const pdf = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) pdf[i] = raw.charCodeAt(i);
    return { pdf, pages: r.pages, warnings: r.warnings, fields: r.fields, renderMs: r.render_ms };
  }

  /** The team's templates, newest first (the first 100). */
  async templates(): Promise<TemplateSummary[]> {
    return (await this.call<{ templates: TemplateSummary[] }>('GET', '/v1/templates?limit=100')).templates;
  }

  template(id: string): Promise<TemplateJson> {
    return this.call('GET', `/v1/templates/${encodeURIComponent(id)}`);
  }

  create(name: string, definition: unknown): Promise<TemplateJson> {
    return this.call('POST', '/v1/templates', { name, type: 'pdf', definition });
  }

  update(id: string, name: string, definition: unknown): Promise<TemplateJson> {
    return this.call('PUT', `/v1/templates/${encodeURIComponent(id)}`, { name, definition });
  }

  publish(id: string, tag: string | undefined): Promise<{ version: number; tag: string | null }> {
    return this.call('POST', `/v1/templates/${encodeURIComponent(id)}/versions`, tag ? { tag } : {});
  }
}
