/**
 * Checks of a template definition before a request is taken: validation, the data against it, and
 * what a request needs to know up front (fields, a page's pixel size, image sources to fetch).
 */
import { checkData, imagePixelSize, imageSources, pdfUaFaults, templateFields, validateTemplate, type ErrorDetail, type ImageSourceUse, type PdfUaFault, type TemplateField } from '../../engine/index.ts';

/** A definition to validate, and data to check against it (task.ts check, services/definition-check.ts). */
export interface CheckTask {
  definitionJson: string;
  /** When given (and the definition is valid): check it against the definition (the engine's checkData). */
  data?: unknown;
  /** Deepest nesting of the data (PLATEN_MAX_DATA_DEPTH). */
  maxDataDepth?: number;
  /** Also list the data fields the definition reads (when it is valid). */
  fields?: boolean;
  /** Also give a page's pixel size at this many pixels per point (image output). */
  imageScale?: number;
  /** Also list the image sources to fetch, bound with the data as a render binds them (`now`: ms since the epoch). */
  sources?: { now: number; maxNodes?: number; maxDataScan?: number };
  /**
   * Also tell whether the document is to meet PDF/UA (`requested`: the request's pdf_ua; when
   * absent, the template's pdfUa) and, when it is, what the template lacks for it (pdfUaFaults).
   */
  pdfUa?: { requested?: boolean };
}

/**
 * What a check found: the definition's faults (null when it is valid), the data's (null when
 * it fits or was not given), and this thread's heap in use after it, MiB.
 */
export interface CheckOutcome {
  definitionErrors: ErrorDetail[] | null;
  dataFaults: ErrorDetail[] | null;
  /** With `fields`: the data fields the definition reads (templateFields), else null. */
  fields: TemplateField[] | null;
  /** With `imageScale`: a page's pixel size (imagePixelSize), else null. */
  imageSize: { width: number; height: number } | null;
  /** With `sources`: the image sources that are not data: URIs (imageSources); null when binding failed (the render says why). */
  sources: ImageSourceUse[] | null;
  /** With `pdfUa`: whether PDF/UA applies, and the template's faults for it when it does (empty: none), else null. */
  pdfUa: { applies: boolean; faults: PdfUaFault[] } | null;
  heapMb: number;
}

/**
 * What a check of `definition` (parsed JSON) finds: its faults, else the data's, and what `task`
 * asks for besides. Runs on a render thread (task.ts check) or, for small definitions, on the HTTP
 * thread (services/definition-check.ts).
 */
export function checkDefinitionJson(definition: unknown, task: Omit<CheckTask, 'definitionJson'>): Omit<CheckOutcome, 'heapMb'> {
  const v = validateTemplate(definition);
  if (!v.ok) return { definitionErrors: v.errors, dataFaults: null, fields: null, imageSize: null, sources: null, pdfUa: null };
  const faults = task.data === undefined ? [] : checkData(definition, task.data, { maxDataDepth: task.maxDataDepth });
  let sources: ImageSourceUse[] | null = null;
  if (task.sources && faults.length === 0) {
    try {
      sources = imageSources(definition, task.data, { ...task.sources, now: new Date(task.sources.now) });
    } catch {
      sources = null;
    }
  }
  return {
    definitionErrors: null,
    dataFaults: faults.length > 0 ? faults : null,
    fields: task.fields ? templateFields(definition) : null,
    imageSize: task.imageScale !== undefined ? imagePixelSize(definition, task.imageScale) : null,
    sources,
    pdfUa: task.pdfUa ? pdfUaOf(definition as { pdfUa?: unknown }, task.pdfUa.requested) : null,
  };
}

/** Whether PDF/UA applies to a valid definition (the request's choice, else the template's pdfUa), and its faults when it does. */
function pdfUaOf(definition: { pdfUa?: unknown }, requested: boolean | undefined): { applies: boolean; faults: PdfUaFault[] } {
  const applies = requested ?? definition.pdfUa === true;
  return { applies, faults: applies ? pdfUaFaults(definition) : [] };
}

