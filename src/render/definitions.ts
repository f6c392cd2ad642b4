/**
 * Parsed template definitions by their stored JSON text: the same text gives back the same object,
 * so the engine recognises a definition it has validated already (its identity cache) instead of
 * validating it again on every render. Bounded: past `max` texts the oldest is dropped.
 */
export function definitionCache(max = 256): (json: string) => unknown {
  const parsed = new Map<string, unknown>();
  return (json) => {
    let definition = parsed.get(json);
    if (definition === undefined) {
      definition = JSON.parse(json);
      if (parsed.size >= max) parsed.delete(parsed.keys().next().value as string);
      parsed.set(json, definition);
    }
    return definition;
  };
}
