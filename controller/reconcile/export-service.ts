import { mkdir, writeFile, access } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ENTITY_SCHEMAS } from '../../schemas/index.js';
import { buildJsonSchemaFiles, entitySchemaFileName, REPO_CONFIG_SCHEMA_FILE, REPO_SCHEMA_DIR } from '../../schemas/json-schemas.js';
import { entityIdSchema } from '../../schemas/entity-file.js';
import { REPO_CONFIG_FILE } from '../../schemas/repo-config.js';
import { entityYaml } from '../core/export-yaml.js';
import { exportable } from '../core/normalize.js';
import { escapeControl } from '../core/escape-control.js';
import { UpstreamError, type FieldError } from '../errors.js';
import { formatEntityYaml } from '../source/format-entity-yaml.js';
import type { ConsoleClient } from './console-client.js';

export interface ExportResult {
  /** Files written per folder. */
  counts: Record<string, number>;
  files: string[];
  /** True when flagops.yaml was written (it is never overwritten). */
  wroteConfig: boolean;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * Writes every live entity as canonical YAML (`<folder>/<id>.yaml`: writable fields only, defaults
 * left out, stable key order, schema modeline), plus the JSON Schema files the modelines name and a
 * flagops.yaml when the directory has none. A plan of the result against the same console is empty.
 */
export async function exportConsole(client: ConsoleClient, outDir: string, options: { apiKeyEnv?: string } = {}): Promise<ExportResult> {
  const lists = await Promise.all(ENTITY_SCHEMAS.map(async (entry) => ({ entry, items: await client.listEntities(entry) })));
  const result: ExportResult = { counts: {}, files: [], wroteConfig: false };
  const writes: { path: string; text: string }[] = [];
  // An id names a file: one the kind's schema refuses (`../x`, a slash, an empty one) or one listed
  // twice would write outside the folder or over another entity, so nothing is written then.
  const refused: FieldError[] = [];
  for (const { entry, items } of lists) {
    result.counts[entry.folder] = items.length;
    const schemaPath = `../${REPO_SCHEMA_DIR}/${entitySchemaFileName(entry.kind)}`;
    const idSchema = entityIdSchema(entry);
    const seen = new Set<string>();
    for (const item of items) {
      const raw = item[entry.idField];
      const checked = idSchema.safeParse(raw);
      const shown = escapeControl(JSON.stringify(raw) ?? 'undefined', true);
      if (!checked.success) {
        const why = raw === undefined ? 'is missing' : checked.error.issues.map((i) => i.message).join('; ');
        refused.push({ property: `${entry.folder}/${shown}`, errorMessage: `${entry.idField} ${why}` });
        continue;
      }
      const id = String(raw);
      if (seen.has(id)) {
        refused.push({ property: `${entry.folder}/${shown}`, errorMessage: `the console listed this ${entry.idField} more than once` });
        continue;
      }
      seen.add(id);
      const file = `${entry.folder}/${id}.yaml`;
      // Written in fmt's canonical form, so `flagops fmt --check` passes on an export.
      const text = entityYaml(exportable(entry, item), schemaPath);
      const formatted = formatEntityYaml(text, entry);
      writes.push({ path: file, text: formatted.ok ? formatted.text : text });
      result.files.push(file);
    }
  }
  if (refused.length > 0) {
    throw new UpstreamError(`The console at ${client.baseUrl} listed ${refused.length === 1 ? 'an entity' : `${refused.length} entities`} whose ${refused.length === 1 ? 'id names' : 'ids name'} no file: nothing was exported. ${refused.map((e) => `${e.property}: ${e.errorMessage}`).join('. ')}.`);
  }
  for (const schema of buildJsonSchemaFiles()) writes.push({ path: `${REPO_SCHEMA_DIR}/${schema.name}`, text: schema.text });
  if (!(await exists(join(outDir, REPO_CONFIG_FILE)))) {
    const apiKeyEnv = options.apiKeyEnv ?? 'FLAGOPS_API_KEY';
    writes.push({
      path: REPO_CONFIG_FILE,
      text: `# yaml-language-server: $schema=${REPO_SCHEMA_DIR}/${REPO_CONFIG_SCHEMA_FILE}\n# Exported from ${client.baseUrl}. The API key is read from $${apiKeyEnv}, never from a file.\nconsole:\n  url: ${client.baseUrl}\n  apiKeyEnv: ${apiKeyEnv}\n`,
    });
    result.wroteConfig = true;
  }
  const dirs = new Set(writes.map((w) => dirname(join(outDir, w.path))));
  for (const dir of dirs) await mkdir(dir, { recursive: true });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < writes.length) {
      const { path, text } = writes[next++] as { path: string; text: string };
      await writeFile(join(outDir, path), text);
    }
  };
  await Promise.all(Array.from({ length: Math.min(32, writes.length) }, worker));
  return result;
}
