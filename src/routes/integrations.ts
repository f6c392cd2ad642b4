/**
 * The team's S3 integration (spec §4.5; DESIGN §4): create or replace, read, delete, test. No
 * response carries the secret access key. Thin: storage in services/integrations.ts, the S3
 * calls in services/s3.ts.
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Services } from '../app.ts';
import { validationError } from '../errors.ts';
import { s3IntegrationBody, s3IntegrationJson, s3TestResult } from '../schemas/integrations.ts';
import { deleteS3Integration, getS3Integration, saveS3Integration, toS3IntegrationJson } from '../services/integrations.ts';
import { s3EndpointProblem } from '../services/network.ts';
import { authErrors, errorResponse, json, newRouter } from './router.ts';

const notFound = { 404: errorResponse('the team has no S3 integration (INTEGRATION_NOT_FOUND)') };

const put = createRoute({
  method: 'post',
  path: '/s3',
  summary: 'Create or replace the team’s S3 integration',
  description:
    'One integration per team; posting again replaces every field. `endpoint` is the base URL of an S3-compatible store (MinIO, R2, Ceph; path-style addressing); leave it out for AWS S3. ' +
    'An endpoint on a private, loopback or reserved address is refused unless the server sets PLATEN_S3_ALLOW_PRIVATE_ENDPOINTS=true. ' +
    'The secret access key is stored encrypted and never returned. Nothing is sent to the store: use POST /v1/integrations/s3/test.',
  security: [{ apiKey: [] }],
  request: { body: { required: true, content: json(s3IntegrationBody) } },
  responses: {
    200: { description: 'replaced; the integration as GET shows it', content: json(s3IntegrationJson) },
    201: { description: 'created; the integration as GET shows it', content: json(s3IntegrationJson) },
    400: errorResponse('invalid field, or a private endpoint (VALIDATION_ERROR)'),
    ...authErrors,
  },
});

const get = createRoute({
  method: 'get',
  path: '/s3',
  summary: 'The team’s S3 integration (without the secret)',
  security: [{ apiKey: [] }],
  responses: { 200: { description: 'the integration', content: json(s3IntegrationJson) }, ...notFound, ...authErrors },
});

const remove = createRoute({
  method: 'delete',
  path: '/s3',
  summary: 'Delete the team’s S3 integration',
  description: 'Requests with store_s3 are then refused (400 S3_INTEGRATION_MISSING); queued ones fail with that code.',
  security: [{ apiKey: [] }],
  responses: { 204: { description: 'deleted' }, ...notFound, ...authErrors },
});

const test = createRoute({
  method: 'post',
  path: '/s3/test',
  summary: 'Check the integration: reach the bucket, write a probe object, delete it',
  description:
    'The probe object is `<default_prefix>/.platen-probe-<random>`. Answers 200 whatever the outcome: `ok` says whether every step passed; ' +
    'when one fails, `step` names it (`connect`, `write` or `delete`) and `error` carries what the store said. Costs no credit.',
  security: [{ apiKey: [] }],
  responses: { 200: { description: 'the outcome of each step', content: json(s3TestResult) }, ...notFound, ...authErrors },
});

export function integrationRoutes(s: Services): OpenAPIHono<AppEnv> {
  const app = newRouter();
  app.openapi(put, async (c) => {
    const body = c.req.valid('json');
    if (body.endpoint !== undefined) {
      const problem = await s3EndpointProblem(body.endpoint, s.config.s3AllowPrivateEndpoints);
      if (problem) throw validationError([{ path: 'endpoint', message: problem }]);
    }
    const { row, created } = await saveS3Integration(s.db, s.secrets, c.get('teamId'), body);
    return c.json(toS3IntegrationJson(row), created ? 201 : 200);
  });
  app.openapi(get, async (c) => c.json(toS3IntegrationJson(await getS3Integration(s.db, c.get('teamId'))), 200));
  app.openapi(remove, async (c) => {
    await deleteS3Integration(s.db, c.get('teamId'));
    return c.body(null, 204);
  });
  app.openapi(test, async (c) => c.json(await s.s3.probe(await getS3Integration(s.db, c.get('teamId'))), 200));
  return app;
}
