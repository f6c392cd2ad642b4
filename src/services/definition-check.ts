/**
 * Where a template definition is validated, and data checked against it, before a template is
 * stored, a preview rendered or a credit taken: on the HTTP thread when the definition's JSON text
 * is short (PLATEN_CHECK_IN_THREAD_BYTES, 64 KiB by default: a few ms), else on a render thread in
 * the team's fair share (a 10 MB definition takes 0.4 s of CPU, 2 s when every node is faulty,
 * which on the HTTP thread held every other request as long).
 */
import type { ErrorDetail } from '../../engine/index.ts';
import { checkDefinitionJson, type CheckOutcome, type CheckTask } from '../render/check.ts';
import { definitionCache } from '../render/definitions.ts';
import { RenderFailure, type RenderOnThread, type RenderPool } from '../render/pool.ts';
import { ApiError, validationError } from '../errors.ts';

/** What a check found: the definition's faults, else the data's (null when there are none), and what was asked for besides (CheckOutcome). */
export type DefinitionCheck = Omit<CheckOutcome, 'heapMb'>;

/** What a check may find besides faults (CheckTask): the fields, a page's pixel size at a scale, the image sources bound with the data. */
export type CheckExtras = Pick<CheckTask, 'fields' | 'imageScale' | 'sources'>;

// Stored definitions are checked again on every request: each parsed once here.
const parsedDefinition = definitionCache();

/**
 * Validate `definitionJson` (a template definition's JSON text); when it is valid, check `data`
 * against it if given (maxDataDepth: the pool's engine limits) and find what `extras` asks for.
 * Without a pool, always on this thread; with `onThread`, on the thread a caller already holds
 * (a job being run) instead of one it would wait for.
 * @throws ApiError 400 VALIDATION_ERROR (path `definition`) when a render thread had to stop the
 *   check (its deadline or memory limit); RenderFailure when the thread crashed.
 */
export async function checkDefinition(pool: RenderPool | undefined, team: string, definitionJson: string, data?: unknown, extras: CheckExtras = {}, onThread?: RenderOnThread): Promise<DefinitionCheck> {
  const maxDataDepth = pool?.engineLimits.maxDataDepth;
  if (pool === undefined || definitionJson.length <= pool.limits.checkInThreadBytes) {
    return checkDefinitionJson(parsedDefinition(definitionJson), { data, maxDataDepth, ...extras });
  }
  try {
    const task = { definitionJson, data, maxDataDepth, ...extras };
    const { heapMb: _heapMb, ...found } = await (onThread ? onThread.check(task) : pool.check(task, team));
    return found;
  } catch (e) {
    if (e instanceof RenderFailure && (e.code === 'RENDER_TIMEOUT' || e.code === 'RENDER_MEMORY')) {
      throw validationError([{ path: 'definition', message: `could not be validated: ${e.message.replace(/^the render/, 'validating it')}; make it smaller` }]);
    }
    throw e;
  }
}

/** 400 VALIDATION_ERROR naming `field` (the request's template id): a stored definition that no longer validates (stored before a rule that now refuses it). */
export function noLongerValid(templateId: string, errors: readonly ErrorDetail[], field = 'template_id'): ApiError {
  const first = errors[0];
  const what = `template is invalid: ${first.path || '(root)'}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
  return validationError([{ path: field, message: `the stored template ${templateId} no longer validates (${what}); correct it with PUT /v1/templates/${templateId}` }]);
}

/**
 * Check `data` against the stored definition `definitionJson` of template `templateId` (POST
 * /v1/pdf/create, /v1/image/create, jobs, previews), before any credit moves.
 * @throws ApiError 400 VALIDATION_ERROR: `data.<path>` for data of the wrong shape (an `each` over
 *   something that is not a list, data nested too deep), `template_id` for a definition that no
 *   longer validates; as {@link checkDefinition}.
 * @returns what the check found (`extras`).
 */
export async function checkStoredData(pool: RenderPool, teamId: string, definitionJson: string, data: unknown, templateId: string, extras: CheckExtras = {}): Promise<DefinitionCheck> {
  const found = await checkDefinition(pool, teamId, definitionJson, data, extras);
  if (found.definitionErrors) throw noLongerValid(templateId, found.definitionErrors);
  if (found.dataFaults) throw validationError(found.dataFaults.map((f) => ({ path: f.path, message: f.message })));
  return found;
}
