import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RepoConfigSchema } from '../../schemas/repo-config.js';
import { InputError } from '../errors.js';
import { exportConsole } from '../reconcile/export-service.js';
import { FsRepoReader } from '../source/fs-repo-reader.js';
import { readRepoConfig } from '../source/load-repo.js';
import { stringOption, type Command } from './command.js';
import { consoleClientFor } from './reconcile-options.js';

export const exportCommand: Command = {
  name: 'export',
  summary: 'Write every live console entity as canonical YAML files',
  usage: `Usage: flagops export --out DIR [--console URL]

  Writes <folder>/<id>.yaml for every live entity (writable fields only, defaults left out, stable
  key order), the JSON Schema files their modelines name, and flagops.yaml when DIR has none.
  The console comes from DIR/flagops.yaml when it exists (else http://127.0.0.1:8080), --console
  overrides it; the key from the variable console.apiKeyEnv names (default FLAGOPS_API_KEY).
  Other files in DIR are left as they are: exported into a folder
  without other entity files, a plan of DIR against the same console is then empty.`,
  options: {
    out: { type: 'string' },
    console: { type: 'string' },
  },
  async run(args, io) {
    const out = stringOption(args, 'out');
    if (out === undefined) throw new InputError('Missing options.', [{ property: '--out', errorMessage: 'is required' }]);
    const dir = resolve(io.cwd, out);
    const hasDir = await access(dir).then(
      () => true,
      () => false,
    );
    const config = hasDir ? await readRepoConfig(new FsRepoReader(dir)) : RepoConfigSchema.parse({});
    const client = consoleClientFor(args, io, config);
    const result = await exportConsole(client, dir, { apiKeyEnv: config.console.apiKeyEnv });
    const counts = Object.entries(result.counts)
      .filter(([, n]) => n > 0)
      .map(([folder, n]) => `${n} ${folder}`);
    io.stdout(`Exported ${result.files.length} entities from ${client.baseUrl} to ${out}${counts.length > 0 ? ` (${counts.join(', ')})` : ''}${result.wroteConfig ? '; wrote flagops.yaml' : ''}.\n`);
    return 0;
  },
};
