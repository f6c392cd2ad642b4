/**
 * The demo seed (DESIGN §3): on an empty database, a "Demo" team with 100 credits, one API key
 * (shown once) and every example in examples/ stored as a template.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { count } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { createTemplate } from './services/templates.ts';
import { createTeam } from './services/teams.ts';

export const EXAMPLES_DIR = fileURLToPath(new URL('../examples/', import.meta.url));

export interface Seeded {
  teamId: string;
  apiKey: string;
  templates: { name: string; id: string }[];
}

/** Seed when the database has no team; otherwise do nothing and return null. */
export async function seedDemo(db: Db, examplesDir = EXAMPLES_DIR): Promise<Seeded | null> {
  const [{ n }] = await db.orm.select({ n: count() }).from(db.t.teams);
  if (n > 0) return null;
  return db.transaction(async (tx) => {
    const { teamId, apiKey } = await createTeam(tx, 'Demo', 100);
    const names = readdirSync(examplesDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const templates: Seeded['templates'] = [];
    for (const name of names) {
      const definition = JSON.parse(readFileSync(join(examplesDir, name, 'template.json'), 'utf8'));
      templates.push({ name, id: (await createTemplate(tx, teamId, { name, type: 'pdf', definition })).id });
    }
    return { teamId, apiKey, templates };
  });
}

/**
 * Write the body of a create request for the seeded invoice with its sample data
 * (examples/invoice/data.json) to `<dataDir>/demo-invoice-request.json`, for the curl that the
 * first start prints. @returns the file's absolute path.
 */
export function writeDemoRequest(dataDir: string, seeded: Seeded, examplesDir = EXAMPLES_DIR): string {
  const invoice = seeded.templates.find((t) => t.name === 'invoice') ?? seeded.templates[0];
  const data = JSON.parse(readFileSync(join(examplesDir, invoice.name, 'data.json'), 'utf8'));
  const file = resolve(dataDir, 'demo-invoice-request.json');
  writeFileSync(file, `${JSON.stringify({ template_id: invoice.id, data }, null, 2)}\n`);
  return file;
}
