/**
 * `npm run schema`: writes schemas/template.schema.json, the template DSL as JSON Schema generated
 * from the zod schema that validates templates (engine/template/json-schema.ts). Run it after
 * changing engine/template/schema.ts or the schema's documentation; a test compares the file with
 * a fresh generation.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { templateJsonSchemaText } from '../engine/template/json-schema.ts';

const file = fileURLToPath(new URL('../schemas/template.schema.json', import.meta.url));
writeFileSync(file, templateJsonSchemaText());
console.log(`wrote ${file}`);
