/** Queued generation (spec §4.2-§4.4): create-async, one job, the job list. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv, Services } from '../app.ts';
import { validationError } from '../errors.ts';
import { asyncCreated, createAsyncBody, jobList, jobListQuery, jobRecord } from '../schemas/jobs.ts';
import { checkRequest } from '../services/generate.ts';
import { checkImageRequest } from '../services/image.ts';
import { protectionOf } from '../schemas/pdf.ts';
import { getJobJson, insertJob, jobOfIdempotencyKey, listJobs, type JobView, type NewJob } from '../services/jobs.ts';
import { idempotencyHeaders, idempotencyOf, replayedJob } from '../services/idempotency.ts';
import { getTeam } from '../services/teams.ts';
import { webhookUrlProblem } from '../services/network.ts';
import { authErrors, errorResponse, json, newRouter } from './router.ts';


const createAsync = createRoute({
  method: 'post',
  path: '/create-async',
  summary: 'Queue a PDF generation',
  security: [{ apiKey: [] }],
  request: { headers: idempotencyHeaders, body: { required: true, content: { 'application/json': { schema: createAsyncBody } } } },
  responses: {
    202: {
      description: 'queued; poll GET /v1/pdf/jobs/{job_id} or wait for the webhook. A repeated request (same Idempotency-Key and body) gets the same job, with the header `Idempotent-Replayed: true`, and takes no credit',
      content: json(asyncCreated),
    },
    400: errorResponse('invalid request'),
    ...authErrors,
    402: errorResponse('no credits left'),
    403: errorResponse('template of another team'),
    404: errorResponse('unknown template or version'),
    422: errorResponse('the Idempotency-Key was first sent with a different body (IDEMPOTENCY_KEY_REUSED)'),
  },
});

const getOne = createRoute({
  method: 'get',
  path: '/jobs/{job_id}',
  summary: 'A job record',
  security: [{ apiKey: [] }],
  request: { params: z.object({ job_id: z.string().min(1) }) },
  responses: { 200: { description: 'the job', content: json(jobRecord) }, 404: errorResponse('unknown job, or another team\'s'), ...authErrors },
});

const list = createRoute({
  method: 'get',
  path: '/jobs',
  summary: "The caller's team's jobs, newest first",
  security: [{ apiKey: [] }],
  request: { query: jobListQuery },
  responses: { 200: { description: 'a page of jobs', content: json(jobList) }, 400: errorResponse('bad limit, offset or status'), ...authErrors },
});

export function jobRoutes(s: Services): OpenAPIHono<AppEnv> {
  const app = newRouter();
  app.openapi(createAsync, async (c) => {
    const body = c.req.valid('json');
    const teamId = c.get('teamId');
    // A request sent again with its Idempotency-Key gets its first job, before any other check
    // (the template may have changed since, or the balance run out).
    const idempotency = idempotencyOf(c.req.valid('header')['idempotency-key'], body, s.config.secret);
    const replay = async (job: JobView) => {
      replayedJob(job, idempotency!);
      c.header('Idempotent-Replayed', 'true');
      return c.json({ job_id: job.id, status: job.status, credits_remaining: (await getTeam(s.db, teamId))?.credits ?? 0 }, 202);
    };
    const prior = idempotency && (await jobOfIdempotencyKey(s.db, teamId, idempotency.key));
    if (prior) return replay(prior);
    // The cheap, local checks first; the webhook URL's DNS lookup only for a request they let through.
    // Passwords are kept sealed with the job (AES-256-GCM, secrets.ts) until it runs; never in clear.
    const protection = protectionOf(body);
    // Image output takes templates of either type and checks the image's size instead.
    const { definition } =
      body.output === 'pdf'
        ? await checkRequest(s.db, s.pool, teamId, { ...body, export_type: 'url' })
        : await checkImageRequest(s, teamId, { ...body, scale: body.scale ?? 2 }, s.config.maxImageOutputPixels);
    if (body.webhook_url !== undefined) {
      const problem = await webhookUrlProblem(body.webhook_url, s.config.webhookAllowPrivate);
      if (problem) throw validationError([{ path: 'webhook_url', message: problem }]);
    }
    // Cluster mode queues the job in the transaction that writes it; in process, once it committed.
    const enqueueIn = s.runner.inTransaction(teamId);
    const newJob: NewJob = {
      templateId: body.template_id,
      definition,
      data: body.data,
      filename: body.filename,
      expiration: body.expiration,
      storeS3: body.store_s3,
      s3Filepath: body.s3_filepath,
      s3Bucket: body.s3_bucket,
      pdfVariant: body.pdf_variant,
      webhookUrl: body.webhook_url,
      webhookSecretEnc: body.webhook_secret !== undefined ? s.secrets.seal(body.webhook_secret) : undefined,
      output: body.output,
      imageOptions: body.output === 'pdf' ? undefined : { scale: body.scale ?? 2, page: body.page ?? 1, maxPixels: s.config.maxImageOutputPixels },
      protectionEnc: protection ? s.secrets.seal(JSON.stringify(protection)) : undefined,
      idempotency,
    };
    let inserted: Awaited<ReturnType<typeof insertJob>>;
    try {
      inserted = await insertJob(s.db, teamId, newJob, enqueueIn);
    } catch (e) {
      // The same key sent twice at once: the other request's job committed first, and this one's
      // transaction rolled back, at its insert (a unique violation) or already at its debit (402
      // when the other took the last credit). Either way its job is the other's.
      const first = idempotency ? await jobOfIdempotencyKey(s.db, teamId, idempotency.key) : undefined;
      if (first) return replay(first);
      throw e;
    }
    const { job, creditsRemaining } = inserted;
    if (!enqueueIn) s.runner.enqueue(job.id, teamId);
    return c.json({ job_id: job.id, status: 'pending' as const, credits_remaining: creditsRemaining }, 202);
  });
  app.openapi(getOne, async (c) => c.json(await getJobJson(s.db, c.get('teamId'), c.req.valid('param').job_id), 200));
  app.openapi(list, async (c) => {
    const q = c.req.valid('query');
    return c.json(await listJobs(s.db, c.get('teamId'), q.limit, q.offset, q.status), 200);
  });
  return app;
}
