/**
 * ICC profiles for output intents, from icc-profiles/ (manifest.json + files), read once per process.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface IccProfile {
  name: string;
  data: Buffer;
  components: number;
  outputConditionIdentifier: string;
  info: string;
}

const DIR = fileURLToPath(new URL('../../icc-profiles/', import.meta.url));
let cached: IccProfile | undefined;

/** The default profile of icc-profiles/manifest.json (sRGB). */
export function defaultIccProfile(): IccProfile {
  if (cached) return cached;
  const manifest = JSON.parse(readFileSync(`${DIR}manifest.json`, 'utf8')) as {
    default: string;
    profiles: { name: string; file: string; components: number; outputConditionIdentifier: string; info: string }[];
  };
  const entry = manifest.profiles.find((p) => p.name === manifest.default);
  if (!entry) throw new Error(`icc-profiles/manifest.json: no profile named ${manifest.default}`);
  cached = { ...entry, data: readFileSync(`${DIR}${entry.file}`) };
  return cached;
}
