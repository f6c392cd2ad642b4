/**
 * Request and response examples of every operation, merged into the generated OpenAPI document
 * (GET /openapi.json, shown by /docs as named examples). Kept apart from the route schemas so
 * that each operation's examples read as one story: a request, then each answer it can get.
 * test/api/openapi-examples.test.ts checks that every operation with a JSON body and every JSON
 * answer has one, that each example is valid against its schema, and that every value of every
 * enum of a request body appears in one of its examples.
 */

/** One named example (OpenAPI Example Object). */
export interface Example {
  readonly summary: string;
  readonly value: unknown;
}

/** The examples of one operation: its request body's and its answers' by HTTP status. */
export interface OperationExamples {
  readonly request?: Readonly<Record<string, Example>>;
  readonly responses?: Readonly<Record<string, Readonly<Record<string, Example>>>>;
}

const TEMPLATE_ID = 'Xy12Ab34Cd56';
const JOB_ID = '0b9f6c1e-3f4a-4b8e-9a71-5d2c8e6f1a20';
const AT = '2026-01-31T12:00:00.000Z';
const URL = 'https://pdf.example.com/cdn/files/7f3a9c2e1b5d.pdf?expires=1769947200&signature=3b9c1f0e7d2a4b6c8e0f1a3b5c7d9e1f';

const invoiceData = { number: 'INV-1001', customer: { name: 'Ada Lovelace' }, items: [{ description: 'Consulting', qty: 3, price: 120 }], total: 360 };
const invoiceDefinition = {
  page: { size: 'A4', margin: 48 },
  styles: { title: { fontSize: 20, fontWeight: 'bold' }, num: { textAlign: 'right' } },
  content: [
    { text: 'Invoice {{number}}', style: 'title' },
    { text: 'Bill to: {{customer.name}}', margin: [0, 4, 12, 0] },
    {
      table: {
        columns: ['*', 'auto', 'auto'],
        header: [['Item', { text: 'Qty', style: 'num' }, { text: 'Price', style: 'num' }]],
        rows: [{ each: 'items', as: 'item', row: ['{{item.description}}', { text: '{{item.qty}}', style: 'num' }, { text: '{{item.price | currency:"EUR"}}', style: 'num' }] }],
        footer: [['', { text: 'Total', style: 'num' }, { text: '{{total | currency:"EUR"}}', style: 'num' }]],
      },
    },
  ],
};

/** `{code, detail}` of an error answer, with `extra` fields. */
function error(code: string, detail: string, extra: Record<string, unknown> = {}): Example['value'] {
  return { code, detail, ...extra };
}

const one = (summary: string, value: unknown): Readonly<Record<string, Example>> => ({ default: { summary, value } });

/** 401 and 429, which every /v1 operation may answer. */
const AUTH_ERRORS = {
  401: one('no x-api-key header, or an unknown or revoked key', error('UNAUTHORIZED', 'invalid API key')),
  429: one('more requests this minute than the key may make', error('RATE_LIMIT_EXCEEDED', 'more than 60 requests in a minute; retry after 12 s')),
};
const TEMPLATE_NOT_FOUND = one('no template with this id', error('TEMPLATE_NOT_FOUND', `no template with id "${TEMPLATE_ID}"`));
const FORBIDDEN = one('the template belongs to another team', error('FORBIDDEN', `template "${TEMPLATE_ID}" does not belong to your team`));
const warning = { code: 'DATA_MISSING', message: 'no data at "customer.vat_id"', path: 'content[2].text' };

const pdfCreateErrors = {
  400: {
    validation: { summary: 'a field out of range', value: error('VALIDATION_ERROR', 'expiration: must be at least 60', { errors: [{ path: 'expiration', message: 'must be at least 60' }] }) },
    data: { summary: 'data of the wrong shape for the template', value: error('VALIDATION_ERROR', 'data.items: must be a list (the template repeats over it)', { errors: [{ path: 'data.items', message: 'must be a list (the template repeats over it)' }] }) },
    image: { summary: 'an image template on a PDF endpoint', value: error('BAD_REQUEST', `template "${TEMPLATE_ID}" is an image template; use the image endpoint`) },
  },
  402: one('no credits left', error('INSUFFICIENT_CREDITS', 'the team has no credits left')),
  403: FORBIDDEN,
  404: TEMPLATE_NOT_FOUND,
  ...AUTH_ERRORS,
};

const job = {
  id: JOB_ID,
  status: 'completed',
  template_id: TEMPLATE_ID,
  output: 'pdf',
  export_type: 'url',
  filename: 'invoice-1001.pdf',
  store_s3: false,
  created_at: AT,
  updated_at: '2026-01-31T12:00:00.210Z',
  completed_at: '2026-01-31T12:00:00.210Z',
  result_url: URL,
  result_filename: 'invoice-1001.pdf',
  result_expires_at: '2026-02-01T12:00:00.000Z',
  result_s3_bucket: null,
  result_s3_key: null,
  error_message: null,
  error_code: null,
  warnings: [],
  webhook: { status: 'delivered', event: 'pdf.completed', attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null },
};
const failedJob = {
  ...job,
  status: 'failed',
  completed_at: null,
  result_url: null,
  result_filename: null,
  result_expires_at: null,
  error_code: 'LIMIT_EXCEEDED',
  error_message: 'the document would have more than 1000 pages (content[2])',
  webhook: { status: 'pending', event: 'pdf.failed', attempts: 1, last_status_code: 503, last_error: 'HTTP 503', next_attempt_at: '2026-01-31T12:00:01.420Z' },
};

const templateSummary = { id: TEMPLATE_ID, name: 'Invoice', type: 'pdf', created_at: AT, updated_at: AT };
const template = { ...templateSummary, definition: invoiceDefinition };
const integration = {
  bucket: 'acme-invoices',
  region: 'eu-central-1',
  access_key_id: 'AKIAIOSFODNN7EXAMPLE',
  secret_access_key_set: true,
  endpoint: null,
  path_style: false,
  default_prefix: 'invoices/',
  created_at: AT,
  updated_at: AT,
};
const integrationRequest = { bucket: 'acme-invoices', region: 'eu-central-1', access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', default_prefix: 'invoices/' };
const INTEGRATION_NOT_FOUND = one('the team has no S3 integration', error('INTEGRATION_NOT_FOUND', 'this team has no S3 integration; create one with POST /v1/integrations/s3'));

const ASSET_ID = '3f9c2a7e1b5d4c6f8a0e2d4b6c8a0f1e';
const asset = { id: ASSET_ID, filename: 'logo.svg', content_type: 'image/svg+xml', bytes: 1834, created_at: AT };
const IMAGE_FETCH_FAILED = {
  url: {
    summary: 'an image URL could not be fetched (no credit taken)',
    value: error('IMAGE_FETCH_FAILED', 'content[0].image: image https://cdn.example.com/logo.png could not be fetched: the server answered HTTP 404', { url: 'https://cdn.example.com/logo.png', path: 'content[0].image' }),
  },
  asset: {
    summary: 'an asset that was deleted, or belongs to another team',
    value: error('IMAGE_FETCH_FAILED', `content[0].image: asset ${ASSET_ID} does not exist (it was deleted, or belongs to another team); upload it with POST /v1/assets`, { url: `asset:${ASSET_ID}`, path: 'content[0].image' }),
  },
};

/** Examples by operation: "METHOD /path" as in the OpenAPI document. */
/** The definition used by the examples (exported so a test renders it). */
export const EXAMPLE_DEFINITION = invoiceDefinition;
/** Its data. */
export const EXAMPLE_DATA = invoiceData;

export const OPERATION_EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  'POST /v1/pdf/create': {
    request: {
      url: { summary: 'a signed URL to the PDF (the default)', value: { template_id: TEMPLATE_ID, data: invoiceData, export_type: 'url', expiration: 3600, filename: 'invoice-1001' } },
      binary: { summary: 'the PDF bytes in the answer', value: { template_id: TEMPLATE_ID, data: invoiceData, export_type: 'binary' } },
      s3: { summary: "into the team's own S3 bucket", value: { template_id: TEMPLATE_ID, data: invoiceData, store_s3: true, s3_filepath: 'invoices/2026/', filename: 'invoice-1001' } },
      pdfa1b: { summary: 'PDF/A-1b for archiving, version tagged "v1.0"', value: { template_id: TEMPLATE_ID, data: invoiceData, pdf_variant: 'pdf/a-1b', version: 'v1.0' } },
      pdfa2b: { summary: 'PDF/A-2b', value: { template_id: TEMPLATE_ID, data: invoiceData, pdf_variant: 'pdf/a-2b' } },
      pdfa3b: { summary: 'PDF/A-3b, version 3 of the template', value: { template_id: TEMPLATE_ID, data: invoiceData, pdf_variant: 'pdf/a-3b', version: '3' } },
      protected: { summary: 'opened with a password; printing and copying allowed', value: { template_id: TEMPLATE_ID, data: invoiceData, export_type: 'binary', password: 'open-sesame', owner_password: 'owner-secret-42', permissions: ['print', 'copy'] } },
      editable: { summary: 'no password to open; form filling and comments allowed, printing not', value: { template_id: TEMPLATE_ID, data: invoiceData, owner_password: 'owner-secret-42', permissions: ['modify', 'annotate'] } },
    },
    responses: {
      200: {
        url: { summary: 'export_type "url"', value: { url: URL, filename: 'invoice-1001.pdf', credits_remaining: 99, expires_in: 3600, warnings: [] } },
        s3: { summary: 'store_s3', value: { s3_bucket: 'acme-invoices', s3_key: 'invoices/2026/invoice-1001.pdf', filename: 'invoice-1001.pdf', credits_remaining: 98, warnings: [warning] } },
      },
      ...pdfCreateErrors,
      500: one('the render failed (the credit is refunded)', error('INTERNAL_ERROR', 'rendering failed: the render took longer than 30000 ms; the credit was refunded', { render_error: { code: 'RENDER_TIMEOUT', message: 'the render took longer than 30000 ms', path: null } })),
      502: one('the S3 store refused the upload (the credit is refunded)', error('S3_UPLOAD_FAILED', 'the upload to bucket "acme-invoices" failed: Access Denied; the credit was refunded', { s3_bucket: 'acme-invoices', s3_key: 'invoices/2026/invoice-1001.pdf' })),
      503: one('the file store is unavailable (the credit is refunded)', error('STORAGE_UNAVAILABLE', 'the file store could not be written; the credit was refunded')),
      422: IMAGE_FETCH_FAILED,
    },
  },
  'POST /v1/image/create': {
    request: {
      png: { summary: 'page 1 as a PNG at 144 dpi, by signed URL', value: { template_id: TEMPLATE_ID, data: invoiceData, format: 'png', scale: 2, page: 1, export_type: 'url', filename: 'invoice-1001' } },
      jpeg: { summary: 'page 2 as a JPEG at 300 dpi, the bytes in the answer', value: { template_id: TEMPLATE_ID, data: invoiceData, format: 'jpeg', scale: 4.1667, page: 2, export_type: 'binary' } },
      s3: { summary: "into the team's own S3 bucket", value: { template_id: TEMPLATE_ID, data: invoiceData, store_s3: true, s3_filepath: 'previews/', filename: 'invoice-1001' } },
    },
    responses: {
      200: {
        url: { summary: 'export_type "url"', value: { url: URL.replace('.pdf', '.png'), filename: 'invoice-1001.png', credits_remaining: 99, expires_in: 86400, width: 1191, height: 1684, page: 1, pages: 1, warnings: [] } },
        s3: { summary: 'store_s3', value: { s3_bucket: 'acme-invoices', s3_key: 'previews/invoice-1001.png', filename: 'invoice-1001.png', credits_remaining: 98, width: 1191, height: 1684, page: 1, pages: 1, warnings: [] } },
      },
      ...pdfCreateErrors,
      400: {
        page: { summary: 'a page past the last one (the credit is refunded)', value: error('VALIDATION_ERROR', 'page: the document has 1 page', { errors: [{ path: 'page', message: 'the document has 1 page' }] }) },
        scale: { summary: 'a scale out of range', value: error('VALIDATION_ERROR', 'scale: must be at most 8', { errors: [{ path: 'scale', message: 'must be at most 8' }] }) },
      },
      422: one('an image by URL could not be fetched (no credit taken)', error('IMAGE_FETCH_FAILED', 'https://cdn.example.com/logo.png answered 404', { url: 'https://cdn.example.com/logo.png', path: 'content[0].image' })),
      500: one('the render failed (the credit is refunded)', error('INTERNAL_ERROR', 'rendering failed: the render took longer than 30000 ms; the credit was refunded', { render_error: { code: 'RENDER_TIMEOUT', message: 'the render took longer than 30000 ms', path: null } })),
      502: one('the S3 store refused the upload (the credit is refunded)', error('S3_UPLOAD_FAILED', 'the upload to bucket "acme-invoices" failed: Access Denied; the credit was refunded', { s3_bucket: 'acme-invoices', s3_key: 'previews/invoice-1001.png' })),
      503: one('the file store is unavailable (the credit is refunded)', error('STORAGE_UNAVAILABLE', 'the file store could not be written; the credit was refunded')),
    },
  },
  'POST /v1/pdf/create-async': {
    request: {
      webhook: { summary: 'notified by a signed webhook', value: { template_id: TEMPLATE_ID, data: invoiceData, export_type: 'url', webhook_url: 'https://hooks.example.com/platen', webhook_secret: 'whsec_5f2b8c1d9e3a7f40' } },
      poll: { summary: 'polled, as PDF/A-2b into S3', value: { template_id: TEMPLATE_ID, data: invoiceData, pdf_variant: 'pdf/a-2b', store_s3: true, s3_bucket: 'acme-archive' } },
      pdfa1b: { summary: 'PDF/A-1b, version tagged "v1.0"', value: { template_id: TEMPLATE_ID, data: invoiceData, pdf_variant: 'pdf/a-1b', version: 'v1.0' } },
      pdfa3b: { summary: 'PDF/A-3b, named, the URL valid for a week', value: { template_id: TEMPLATE_ID, data: invoiceData, pdf_variant: 'pdf/a-3b', filename: 'invoice-1001', expiration: 604800 } },
      protected: { summary: 'a password to open; everything allowed once open', value: { template_id: TEMPLATE_ID, data: invoiceData, password: 'open-sesame', permissions: ['print', 'copy', 'modify', 'annotate'] } },
      pdf: { summary: 'output "pdf" (the default), said explicitly', value: { template_id: TEMPLATE_ID, data: invoiceData, output: 'pdf' } },
      png: { summary: 'page 1 as a PNG at 144 dpi', value: { template_id: TEMPLATE_ID, data: invoiceData, output: 'png', scale: 2, page: 1, filename: 'invoice-1001' } },
      jpeg: { summary: 'page 2 as a JPEG at 72 dpi', value: { template_id: TEMPLATE_ID, data: invoiceData, output: 'jpeg', scale: 1, page: 2 } },
    },
    responses: {
      202: {
        queued: { summary: 'queued', value: { job_id: JOB_ID, status: 'pending', credits_remaining: 99 } },
        replayed: { summary: 'sent again with its Idempotency-Key (no second credit)', value: { job_id: JOB_ID, status: 'completed', credits_remaining: 99 } },
      },
      ...pdfCreateErrors,
      422: one(
        'an Idempotency-Key first sent with another body',
        error('IDEMPOTENCY_KEY_REUSED', `Idempotency-Key "order-1001" was first sent with a different request body (job ${JOB_ID}): send a new key for a new request`, { job_id: JOB_ID }),
      ),
    },
  },
  'GET /v1/pdf/jobs/{job_id}': {
    responses: {
      200: {
        completed: { summary: 'completed', value: job },
        failed: { summary: 'failed (the credit was refunded)', value: failedJob },
      },
      404: one('no job with this id for the team', error('JOB_NOT_FOUND', `no job with id "${JOB_ID}"`)),
      ...AUTH_ERRORS,
    },
  },
  'GET /v1/pdf/jobs': {
    responses: {
      200: one('the newest jobs first', { jobs: [job, failedJob], total: 2, limit: 20, offset: 0 }),
      400: one('a query parameter out of range', error('VALIDATION_ERROR', 'limit: must be at most 100', { errors: [{ path: 'limit', message: 'must be at most 100' }] })),
      ...AUTH_ERRORS,
    },
  },
  'POST /v1/templates': {
    request: {
      pdf: { summary: 'a PDF template', value: { name: 'Invoice', type: 'pdf', definition: invoiceDefinition } },
      image: { summary: 'an image template', value: { name: 'Social card', type: 'image', definition: { page: { size: [1200, 630], margin: 0 }, content: [{ text: '{{title}}', fontSize: 64 }] } } },
    },
    responses: {
      201: one('created', template),
      400: one('a definition the engine refuses, with the path of each fault', error('VALIDATION_ERROR', 'definition.content[2].table.body[1][3]: row has 4 cells for 3 columns', { errors: [{ path: 'definition.content[2].table.body[1][3]', message: 'row has 4 cells for 3 columns' }] })),
      ...AUTH_ERRORS,
    },
  },
  'GET /v1/templates': {
    responses: {
      200: one('the newest first, without definitions', { templates: [templateSummary], total: 1, limit: 20, offset: 0 }),
      400: one('a query parameter out of range', error('VALIDATION_ERROR', 'offset: must be at least 0', { errors: [{ path: 'offset', message: 'must be at least 0' }] })),
      ...AUTH_ERRORS,
    },
  },
  'GET /v1/templates/{id}': {
    responses: { 200: one('the template with its draft definition', template), 403: FORBIDDEN, 404: TEMPLATE_NOT_FOUND, ...AUTH_ERRORS },
  },
  'PUT /v1/templates/{id}': {
    request: {
      definition: { summary: 'a new draft definition', value: { definition: invoiceDefinition } },
      asRead: { summary: 'the template as GET returned it, renamed', value: { ...template, name: 'Invoice (EU)' } },
      image: { summary: "an image template's new definition (its type sent unchanged)", value: { type: 'image', definition: { page: { size: [1200, 630], margin: 0 }, content: [{ text: '{{title}}', fontSize: 72 }] } } },
    },
    responses: {
      200: one('updated', { ...template, updated_at: '2026-02-01T09:30:00.000Z' }),
      400: one('the type cannot change', error('VALIDATION_ERROR', 'type: a template keeps its type (pdf)', { errors: [{ path: 'type', message: 'a template keeps its type (pdf)' }] })),
      403: FORBIDDEN,
      404: TEMPLATE_NOT_FOUND,
      ...AUTH_ERRORS,
    },
  },
  'DELETE /v1/templates/{id}': {
    responses: { 403: FORBIDDEN, 404: TEMPLATE_NOT_FOUND, ...AUTH_ERRORS },
  },
  'POST /v1/templates/{id}/versions': {
    request: { tagged: { summary: 'publish the draft as a tagged version', value: { tag: 'v1.0' } }, untagged: { summary: 'publish without a tag', value: {} } },
    responses: {
      201: one('published', { version: 1, tag: 'v1.0', created_at: AT }),
      400: one('a tag too long', error('VALIDATION_ERROR', 'tag: must be at most 50 characters', { errors: [{ path: 'tag', message: 'must be at most 50 characters' }] })),
      403: FORBIDDEN,
      404: TEMPLATE_NOT_FOUND,
      409: one('the tag is taken', error('TAG_EXISTS', `template "${TEMPLATE_ID}" already has a version tagged "v1.0"`)),
      ...AUTH_ERRORS,
    },
  },
  'GET /v1/templates/{id}/versions': {
    responses: {
      200: one('newest first', { versions: [{ version: 2, tag: null, created_at: '2026-02-01T09:30:00.000Z' }, { version: 1, tag: 'v1.0', created_at: AT }] }),
      403: FORBIDDEN,
      404: TEMPLATE_NOT_FOUND,
      ...AUTH_ERRORS,
    },
  },
  'GET /v1/templates/{id}/fields': {
    responses: {
      200: one('the data the template reads', {
        fields: [
          { name: 'number', type: 'string' },
          { name: 'customer.name', type: 'string' },
          { name: 'items', type: 'array' },
          { name: 'items[].description', type: 'string' },
          { name: 'items[].qty', type: 'number' },
          { name: 'items[].price', type: 'number' },
          { name: 'paid', type: 'boolean' },
          { name: 'logo', type: 'image' },
          { name: 'due', type: 'date' },
          { name: 'buyer', type: 'object' },
          { name: 'note', type: 'unknown' },
        ],
      }),
      400: one(
        'a stored draft that no longer validates',
        error('VALIDATION_ERROR', `id: the stored template ${TEMPLATE_ID} no longer validates (template is invalid: page.margin: the left and right margins leave 0 pt of the page's width of 595 pt for the content; at least 12 pt are needed: make the margins smaller or the page larger); correct it with PUT /v1/templates/${TEMPLATE_ID}`, {
          errors: [{ path: 'id', message: `the stored template ${TEMPLATE_ID} no longer validates (template is invalid: page.margin: the left and right margins leave 0 pt of the page's width of 595 pt for the content; at least 12 pt are needed: make the margins smaller or the page larger); correct it with PUT /v1/templates/${TEMPLATE_ID}` }],
        }),
      ),
      403: FORBIDDEN,
      404: TEMPLATE_NOT_FOUND,
      ...AUTH_ERRORS,
    },
  },
  'POST /v1/templates/preview': {
    request: {
      definition: { summary: 'a definition not saved yet, as JSON with the PDF in base64', value: { definition: invoiceDefinition, data: invoiceData, export_type: 'json' } },
      stored: { summary: 'page 2 of a stored template version as a PNG', value: { template_id: TEMPLATE_ID, version: 'v1.0', data: invoiceData, format: 'png', page: 2, export_type: 'binary' } },
      png: { summary: 'page 1 of a definition as a PNG at 72 dpi, as JSON with the image in base64', value: { definition: invoiceDefinition, data: invoiceData, format: 'png', scale: 1, export_type: 'json' } },
      pdf: { summary: 'the PDF bytes', value: { template_id: TEMPLATE_ID, data: invoiceData, format: 'pdf', export_type: 'binary' } },
    },
    responses: {
      200: {
        pdf: { summary: 'export_type "json"', value: { pdf: 'JVBERi0xLjcKJcfsj6IK...', pages: 1, warnings: [warning], fields: [{ name: 'number', type: 'string' }], render_ms: 6.2 } },
        png: { summary: 'format "png", export_type "json"', value: { png: 'iVBORw0KGgoAAAANSUhEUgAA...', page: 1, width: 596, height: 842, pages: 1, warnings: [], fields: [{ name: 'number', type: 'string' }], render_ms: 48.5 } },
      },
      400: one('a definition fault at its path', error('VALIDATION_ERROR', 'definition.content[0].fontSize: must be a number between 1 and 1000', { errors: [{ path: 'definition.content[0].fontSize', message: 'must be a number between 1 and 1000' }] })),
      403: FORBIDDEN,
      404: TEMPLATE_NOT_FOUND,
      429: one('more previews this minute than the key may make', error('RATE_LIMIT_EXCEEDED', 'more than 300 requests in a minute; retry after 4 s')),
      500: one('the render failed', error('INTERNAL_ERROR', 'rendering failed: the document would have more than 1000 pages', { render_error: { code: 'LIMIT_EXCEEDED', message: 'the document would have more than 1000 pages', path: 'content[2]' } })),
      401: AUTH_ERRORS[401],
      422: IMAGE_FETCH_FAILED,
    },
  },
  'GET /v1/schemas/template.json': {
    responses: { 200: one('the template DSL as JSON Schema (abridged)', { $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'Platen template', type: 'object' }) },
  },
  'GET /v1/account': {
    responses: { 200: one("the caller's team", { team_id: '6f1c2d3e-0a4b-4c5d-8e9f-1a2b3c4d5e6f', name: 'Acme', credits: 99, created_at: AT }), ...AUTH_ERRORS },
  },
  'GET /v1/account/transactions': {
    responses: {
      200: one('newest first: a grant, a generation, a failed one and its refund', {
        transactions: [
          { id: 4, delta: 1, reason: 'refund', job_id: JOB_ID, balance_after: 99, created_at: '2026-01-31T12:00:01.000Z' },
          { id: 3, delta: -1, reason: 'generation', job_id: JOB_ID, balance_after: 98, created_at: '2026-01-31T12:00:00.500Z' },
          { id: 2, delta: -1, reason: 'generation', job_id: null, balance_after: 99, created_at: AT },
          { id: 1, delta: 100, reason: 'grant', job_id: null, balance_after: 100, created_at: '2026-01-30T08:00:00.000Z' },
        ],
        total: 4,
        limit: 20,
        offset: 0,
      }),
      400: one('a query parameter out of range', error('VALIDATION_ERROR', 'limit: must be at most 100', { errors: [{ path: 'limit', message: 'must be at most 100' }] })),
      ...AUTH_ERRORS,
    },
  },
  'POST /v1/integrations/s3': {
    request: {
      aws: { summary: 'an AWS S3 bucket', value: integrationRequest },
      minio: { summary: 'an S3-compatible store (MinIO, R2, Ceph)', value: { ...integrationRequest, region: 'us-east-1', endpoint: 'https://minio.example.com:9000' } },
    },
    responses: {
      201: one('created', integration),
      200: one('replaced', { ...integration, updated_at: '2026-02-01T09:30:00.000Z' }),
      400: one('a private endpoint', error('VALIDATION_ERROR', 'endpoint: must not point at a private or loopback address', { errors: [{ path: 'endpoint', message: 'must not point at a private or loopback address' }] })),
      ...AUTH_ERRORS,
    },
  },
  'GET /v1/integrations/s3': {
    responses: { 200: one('the integration, without its secret', integration), 404: INTEGRATION_NOT_FOUND, ...AUTH_ERRORS },
  },
  'DELETE /v1/integrations/s3': {
    responses: { 404: INTEGRATION_NOT_FOUND, ...AUTH_ERRORS },
  },
  'POST /v1/assets': {
    responses: {
      201: one('stored; use it as "image": "asset:<id>"', asset),
      400: {
        type: { summary: 'not a PNG, JPEG or SVG', value: error('VALIDATION_ERROR', 'file: the file is not a PNG, JPEG or SVG image', { errors: [{ path: 'file', message: 'the file is not a PNG, JPEG or SVG image' }] }) },
        size: { summary: 'larger than PLATEN_ASSET_MAX_BYTES', value: error('VALIDATION_ERROR', 'file: the file is larger than 5242880 bytes (PLATEN_ASSET_MAX_BYTES)', { errors: [{ path: 'file', message: 'the file is larger than 5242880 bytes (PLATEN_ASSET_MAX_BYTES)' }] }) },
      },
      413: one('the request body is larger than PLATEN_MAX_BODY_BYTES', error('PAYLOAD_TOO_LARGE', 'the request body is larger than 10485760 bytes')),
      415: one('not multipart/form-data', error('UNSUPPORTED_MEDIA_TYPE', 'upload the image as multipart/form-data with the field "file"')),
      ...AUTH_ERRORS,
    },
  },
  'GET /v1/assets': {
    responses: { 200: one("a page of the team's assets, newest first", { assets: [asset], total: 1, limit: 20, offset: 0 }), ...AUTH_ERRORS },
  },
  'DELETE /v1/assets/{asset_id}': {
    responses: { 404: one('no such asset in the team', error('ASSET_NOT_FOUND', `asset ${ASSET_ID} does not exist (or belongs to another team)`)), ...AUTH_ERRORS },
  },
  'POST /v1/integrations/s3/test': {
    responses: {
      200: {
        ok: {
          summary: 'the store took a probe object and removed it',
          value: { ok: true, bucket: 'acme-invoices', key: 'invoices/.platen-probe-1769860800000', steps: [{ step: 'connect', ok: true, ms: 38 }, { step: 'write', ok: true, ms: 61 }, { step: 'delete', ok: true, ms: 22 }] },
        },
        failed: {
          summary: 'the store refused the write',
          value: { ok: false, bucket: 'acme-invoices', key: 'invoices/.platen-probe-1769860800000', step: 'write', error: 'AccessDenied: Access Denied', steps: [{ step: 'connect', ok: true, ms: 40 }, { step: 'write', ok: false, ms: 55, error: 'AccessDenied: Access Denied' }] },
        },
        noDelete: {
          summary: 'written, but the key may not delete (the probe object stays)',
          value: { ok: false, bucket: 'acme-invoices', key: 'invoices/.platen-probe-1769860800000', step: 'delete', error: 'AccessDenied: Access Denied', steps: [{ step: 'connect', ok: true, ms: 40 }, { step: 'write', ok: true, ms: 58 }, { step: 'delete', ok: false, ms: 20, error: 'AccessDenied: Access Denied', note: 'the probe object was left in the bucket' }] },
        },
      },
      404: INTEGRATION_NOT_FOUND,
      ...AUTH_ERRORS,
    },
  },
};

interface MediaType {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, Example>;
}
interface Operation {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

/**
 * The OpenAPI document with {@link OPERATION_EXAMPLES} set on its JSON request bodies and answers
 * (as `examples`). Returns a new document; `doc` is not changed.
 */
export function withExamples<T extends { paths?: object }>(doc: T): T {
  const out = structuredClone(doc);
  for (const [path, operations] of Object.entries((out.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const [method, value] of Object.entries(operations)) {
      const examples = OPERATION_EXAMPLES[`${method.toUpperCase()} ${path}`];
      if (!examples) continue;
      const op = value as Operation;
      const body = op.requestBody?.content?.['application/json'];
      if (body && examples.request) body.examples = { ...examples.request };
      for (const [status, answer] of Object.entries(op.responses ?? {})) {
        const named = examples.responses?.[status];
        if (!named) continue;
        const media = answer.content?.['application/json'] ?? Object.values(answer.content ?? {}).find((m) => m !== undefined && isJsonLike(answer.content!, m));
        if (media) media.examples = { ...named };
      }
    }
  }
  return out;
}

function isJsonLike(content: Record<string, MediaType>, media: MediaType): boolean {
  const type = Object.entries(content).find(([, m]) => m === media)?.[0] ?? '';
  return /json/.test(type);
}
