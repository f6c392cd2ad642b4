/**
 * Image XObjects prepared once per decoded image, then copied into each document. pdfkit prepares
 * an image per document: a PNG with an alpha channel (or a transparent palette, or interlacing) is
 * inflated on libuv's thread pool, split and deflated again on every render, and the document
 * waits for that callback. Here pdfkit's own embedding runs once against a recorder; each document
 * then gets the recorded objects (dictionaries and finished streams) synchronously.
 */
import type PDFDocument from 'pdfkit';
import type { DecodedImage } from '../layout/nodes.ts';
import { opaqueImage } from '../pdfa/flatten.ts';

type Doc = InstanceType<typeof PDFDocument>;

/** One indirect object pdfkit's image code made: its dictionary and the bytes it ended with. */
class RecordedObject {
  chunk: unknown = undefined;
  constructor(
    readonly data: Record<string, unknown>,
    private readonly onEnd?: () => void,
  ) {}

  end(chunk?: unknown): void {
    this.chunk = chunk;
    this.onEnd?.();
  }
}

/** What `image.embed(document)` needs of a document. */
class Recorder {
  root: RecordedObject | undefined;
  constructor(private readonly done: (root: RecordedObject) => void) {}

  ref(data: Record<string, unknown> = {}): RecordedObject {
    // The first object is the image XObject; pdfkit ends it last, once its streams are ready.
    if (!this.root) {
      const root: RecordedObject = new RecordedObject(data, () => this.done(root));
      this.root = root;
      return root;
    }
    return new RecordedObject(data);
  }
}

/** An image's XObject, ready to copy into any document. */
export interface PreparedImage {
  readonly width: number;
  readonly height: number;
  /** EXIF orientation of a JPEG (1 to 8), which pdfkit's `image()` honours; 1 otherwise. */
  readonly orientation: number;
  readonly root: RecordedObject;
}

const prepared = new WeakMap<DecodedImage, { plain?: Promise<PreparedImage>; opaque?: Promise<PreparedImage> }>();

/**
 * Prepare `image` (flattened onto white when `opaque`, for PDF/A-1) with pdfkit's embedding, once
 * per image and variant. `doc` only opens the image; nothing is written into it. A failure is not
 * kept: the next render tries again.
 * @throws Error from pdfkit for bytes it cannot read.
 */
export function prepareImage(doc: Doc, image: DecodedImage, opaque: boolean): Promise<PreparedImage> {
  let entry = prepared.get(image);
  if (!entry) prepared.set(image, (entry = {}));
  const key = opaque ? 'opaque' : 'plain';
  let promise = entry[key];
  if (!promise) {
    const data = opaque ? opaqueImage(image) : image.data;
    const img = (doc as unknown as { openImage(src: Buffer): { width: number; height: number; orientation?: number; embed(d: unknown): void } }).openImage(data);
    promise = new Promise<PreparedImage>((resolve) => {
      img.embed(new Recorder((root) => resolve({ width: img.width, height: img.height, orientation: img.orientation ?? 1, root })));
    });
    const forget = () => {
      if (entry[key] === promise) delete entry[key];
    };
    promise.catch(forget);
    entry[key] = promise;
  }
  return promise;
}

function copyValue(doc: Doc, value: unknown): unknown {
  if (value instanceof RecordedObject) return copyObject(doc, value);
  if (Array.isArray(value)) return value.map((v) => copyValue(doc, v));
  return value;
}

function copyObject(doc: Doc, recorded: RecordedObject): unknown {
  const data: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(recorded.data)) data[k] = copyValue(doc, v);
  const ref = (doc as unknown as { ref(d: object): { end(chunk?: unknown): void } }).ref(data);
  ref.end(recorded.chunk);
  return ref;
}

/**
 * Write a prepared image's objects into `doc`.
 * @returns what pdfkit's `doc.image()` takes as an already embedded image (size in pixels).
 */
export function embedPrepared(doc: Doc, image: PreparedImage, label: string): { width: number; height: number; orientation: number; label: string; obj: unknown } {
  return { width: image.width, height: image.height, orientation: image.orientation, label, obj: copyObject(doc, image.root) };
}
