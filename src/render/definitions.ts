/**
 * Parsed template definitions by their stored JSON text: the same text gives back the same object,
 * so the engine recognises a definition it has validated already (its identity cache) instead of
 * validating it again on every render. Bounded: past `max` texts, or past `maxChars` characters of
 * them together, the oldest are dropped; a text longer than a quarter of `maxChars` is parsed
 * every time and not kept (a team's 256 templates of 9 MB each would otherwise stay in memory,
 * parsed, in the HTTP process and in every render thread: several GB).
 */
export function definitionCache(max = 256, maxChars = 32 * 1024 * 1024): (json: string) => unknown {
  const parsed = new Map<string, unknown>();
  let chars = 0;
  return (json) => {
    let definition = parsed.get(json);
    if (definition === undefined) {
      definition = JSON.parse(json);
      if (json.length > maxChars / 4) return definition;
      while (parsed.size > 0 && (parsed.size >= max || chars + json.length > maxChars)) {
        const oldest = parsed.keys().next().value as string;
        parsed.delete(oldest);
        chars -= oldest.length;
      }
      parsed.set(json, definition);
      chars += json.length;
    }
    return definition;
  };
}
