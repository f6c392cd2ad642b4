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
 * On this thread when the definition is short and the data small (at most 10,000 values);
 * without a pool, always on this thread; with `onThread`, on the thread a caller already holds
 * (a job being run) instead of one it would wait for.
 * @throws ApiError 400 VALIDATION_ERROR (path `definition`, or `data` when only the data was large)
 *   when a render thread had to stop the check (its deadline or memory limit); RenderFailure when
 *   the thread crashed.
 */
export async function checkDefinition(pool: RenderPool | undefined, team: string, definitionJson: string, data?: unknown, extras: CheckExtras = {}, onThread?: RenderOnThread): Promise<DefinitionCheck> {
  const maxDataDepth = pool?.engineLimits.maxDataDepth;
  const largeDefinition = pool !== undefined && definitionJson.length > pool.limits.checkInThreadBytes;
  const largeData = pool !== undefined && !largeDefinition && manyValues(data);
  if (pool === undefined || (!largeDefinition && !largeData)) {
    return checkDefinitionJson(parsedDefinition(definitionJson), { data, maxDataDepth, ...extras });
  }
  try {
    const task = { definitionJson, data, maxDataDepth, ...extras };
    const { heapMb: _heapMb, ...found } = await (onThread ? onThread.check(task) : pool.check(task, team));
    return found;
  } catch (e) {
    if (e instanceof RenderFailure && (e.code === 'RENDER_TIMEOUT' || e.code === 'RENDER_MEMORY')) {
      // Whichever was too large to check in time: the definition, else the data.
      const what = largeDefinition ? 'definition' : 'data';
      throw validationError([{ path: what, message: `could not be checked: ${e.message.replace(/^the render/, 'checking it')}; make the ${what} smaller` }]);
    }
    throw e;
  }
}

/** Values in data past which it is checked on a render thread whatever the definition (a body of a million objects took 65 ms to check here). */
const MANY_VALUES = 10_000;

/** Whether `data` holds more than {@link MANY_VALUES} values (objects, arrays and scalars), counted until it does. */
function manyValues(data: unknown): boolean {
  let left = MANY_VALUES;
  const stack: unknown[] = [data];
  while (stack.length > 0) {
    const v = stack.pop();
    if (--left < 0) return true;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      if (v.length > left) return true;
      for (const child of v) stack.push(child);
    } else {
      const keys = Object.keys(v);
      if (keys.length > left) return true;
      for (const key of keys) stack.push((v as Record<string, unknown>)[key]);
    }
  }
  return false;
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
