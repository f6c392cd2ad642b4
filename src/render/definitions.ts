/**
 * Parsed template definitions by their stored JSON text: the same text gives back the same object,
 * so the engine recognises a definition it has validated already (its identity cache) instead of
 * validating it again on every render. Bounded: past `max` texts, or past `maxChars` characters of
 * them together, the least recently used are dropped; a text longer than a quarter of `maxChars` is parsed
 * every time and not kept (a team's 256 templates of 9 MB each would otherwise stay in memory,
 * parsed, in the HTTP process and in every render thread: several GB).
 */
import { StringKeyedCache } from '../../engine/template/string-cache.ts';

export function definitionCache(max = 256, maxChars = 32 * 1024 * 1024): (json: string) => unknown {
  const parsed = new StringKeyedCache<object>(max, maxChars);
  return (json) => parsed.get(json) ?? parsed.remember(json, JSON.parse(json));
}
