/**
 * Where a template definition is validated, and data checked against it, before a template is
 * stored, a preview rendered or a credit taken: on the HTTP thread when the definition's JSON text
 * is short (PLATEN_CHECK_IN_THREAD_BYTES, 64 KiB by default: a few ms) and the data small, else on
 * a render thread in the team's fair share (a 10 MB definition takes 0.4 s of CPU, 2 s when every
 * node is faulty, which on the HTTP thread held every other request as long).
 */
import { dataDepthFault, DEFAULT_LIMITS, invalidTemplateMessage, type ErrorDetail } from '../../engine/index.ts';
import { checkDefinitionJson, type CheckOutcome, type CheckTask } from '../render/check.ts';
import { definitionCache } from '../render/definitions.ts';
import { RenderFailure, type RenderOnThread, type RenderPool } from '../render/pool.ts';
import { ApiError, validationError } from '../errors.ts';
import { holdsMoreThan } from './json-count.ts';

/** What a check found: the definition's faults, else the data's (null when there are none), and what was asked for besides (CheckOutcome). */
export type DefinitionCheck = Omit<CheckOutcome, 'heapMb'>;

/** What a check may find besides faults (CheckTask): the fields, a page's pixel size at a scale, the image sources bound with the data, PDF/UA's faults. */
export type CheckExtras = Pick<CheckTask, 'fields' | 'imageScale' | 'sources' | 'pdfUa'>;

/** What to check besides the definition, and how. */
export interface CheckOptions extends CheckExtras {
  /** Data to check against the definition. */
  data?: unknown;
  /** A thread the caller holds (a job being run): the check runs there rather than on one it would wait for, and a stopped check throws its RenderFailure. */
  onThread?: RenderOnThread;
  /** The request's field that holds the definition, named when its check is stopped (default `definition`; a stored template's: `template_id`, `id`). */
  definitionField?: string;
}

// Stored definitions are checked again on every request: each parsed once here.
const parsedDefinition = definitionCache();

/** Whether `text` is longer than `bytes` bytes in UTF-8 (counted only when its length leaves it in doubt). */
function longerThan(text: string, bytes: number): boolean {
  return text.length > bytes || (text.length * 3 > bytes && Buffer.byteLength(text) > bytes);
}

/**
 * Validate `definitionJson` (a template definition's JSON text); when it is valid, check
 * `options.data` against it if given (maxDataDepth: the pool's engine limits) and find what the
 * options ask for besides. On this thread when the definition is short (PLATEN_CHECK_IN_THREAD_BYTES
 * of UTF-8) and the data small (at most 10,000 values); without a pool, always on this thread.
 * Data nested too deep is refused here (a render thread would never receive it: copying 5,000
 * levels overflows the stack), after the definition's own faults.
 * @throws ApiError 400 VALIDATION_ERROR (path `options.definitionField`, or `data` when only the
 *   data was large) when a render thread had to stop the check (its deadline or memory limit);
 *   RenderFailure when the thread crashed, or with `onThread` whenever it was stopped.
 */
export async function checkDefinition(pool: RenderPool | undefined, team: string, definitionJson: string, options: CheckOptions = {}): Promise<DefinitionCheck> {
  const { data, onThread, definitionField = 'definition', ...extras } = options;
  const maxDataDepth = pool?.engineLimits.maxDataDepth ?? DEFAULT_LIMITS.maxDataDepth;
  const largeDefinition = pool !== undefined && longerThan(definitionJson, pool.limits.checkInThreadBytes);
  const largeData = pool !== undefined && !largeDefinition && holdsMoreThan(data, MANY_VALUES, true);
  if (pool === undefined || (!largeDefinition && !largeData)) {
    return checkDefinitionJson(parsedDefinition(definitionJson), { data, maxDataDepth, ...extras });
  }
  const deep = data === undefined ? null : dataDepthFault(data, maxDataDepth);
  try {
    const task = { definitionJson, data: deep ? undefined : data, maxDataDepth, ...extras };
    const { heapMb: _heapMb, ...found } = await (onThread ? onThread.check(task) : pool.check(task, team));
    return deep && !found.definitionErrors ? { ...found, dataFaults: [deep], sources: null } : found;
  } catch (e) {
    // Whichever was too large to check in time: the definition, else the data.
    if (!onThread) throw stoppedCheck(e, largeDefinition ? definitionField : 'data', `make the ${largeDefinition ? 'definition' : 'data'} smaller`);
    throw e;
  }
}

/**
 * A check a render thread had to stop (its deadline or memory limit: RENDER_TIMEOUT, RENDER_MEMORY)
 * as 400 VALIDATION_ERROR naming `field`, with what to do (`advice`); any other error unchanged.
 */
export function stoppedCheck(e: unknown, field: string, advice: string): unknown {
  if (!(e instanceof RenderFailure) || (e.code !== 'RENDER_TIMEOUT' && e.code !== 'RENDER_MEMORY')) return e;
  return validationError([{ path: field, message: `could not be checked: ${e.message.replace(/^the render/, 'checking it')}; ${advice}` }]);
}

/** Values in data past which it is checked on a render thread whatever the definition (a body of a million objects took 65 ms to check here). */
const MANY_VALUES = 10_000;

/** 400 VALIDATION_ERROR naming `field` (the request's template id): a stored definition that no longer validates (stored before a rule that now refuses it). */
export function noLongerValid(templateId: string, errors: readonly ErrorDetail[], field = 'template_id'): ApiError {
  return validationError([{ path: field, message: `the stored template ${templateId} no longer validates (${invalidTemplateMessage(errors)}); correct it with PUT /v1/templates/${templateId}` }]);
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
  const found = await checkDefinition(pool, teamId, definitionJson, { ...extras, data, definitionField: 'template_id' });
  if (found.definitionErrors) throw noLongerValid(templateId, found.definitionErrors);
  if (found.dataFaults) throw validationError(found.dataFaults.map((f) => ({ path: f.path, message: f.message })));
  return found;
}
