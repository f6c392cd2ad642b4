/**
 * The canvas library (@napi-rs/canvas: Skia, MIT), loaded on first use: PDF renders never load
 * its native addon, and a process where it cannot load (an unsupported platform, a build without
 * the addon) still renders PDFs; only image output fails, with a message that says what to do.
 */
import { createRequire } from 'node:module';
import type * as NapiCanvas from '@napi-rs/canvas';
import { RenderError } from '../errors.ts';

export type Canvas = NapiCanvas.Canvas;
export type Ctx = NapiCanvas.SKRSContext2D;
export type SkiaPath = NapiCanvas.Path2D;
export type SkiaImage = NapiCanvas.Image;

let loaded: typeof NapiCanvas | undefined;
let failure: string | undefined;

/**
 * The library's module.
 * @throws RenderError RENDER_ERROR when it cannot be loaded (the message says how to install it).
 */
export function canvasModule(): typeof NapiCanvas {
  if (loaded) return loaded;
  if (failure === undefined) {
    try {
      loaded = createRequire(import.meta.url)('@napi-rs/canvas') as typeof NapiCanvas;
      return loaded;
    } catch (e) {
      failure = (e as Error)?.message?.split('\n')[0] ?? String(e);
    }
  }
  throw new RenderError(
    'RENDER_ERROR',
    `image output needs the @napi-rs/canvas package and its native addon for ${process.platform}-${process.arch}, which could not be loaded (${failure}); ` +
      'run Platen from an npm install (npm ci) on a supported platform, or render a PDF instead',
  );
}

/** Whether image output is available in this process (loads the library if it was not yet). */
export function canvasAvailable(): boolean {
  try {
    canvasModule();
    return true;
  } catch {
    return false;
  }
}
