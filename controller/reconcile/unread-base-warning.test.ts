import { describe, expect, it } from 'vitest';
import { RepoConfigSchema } from '../../schemas/repo-config.js';
import type { Diagnostic, RepoEntity } from '../core/repo-entity.js';
import type { LoadedRepo } from '../source/load-repo.js';
import { unreadBaseWarning } from './unread-base-warning.js';

const error = (file: string, property = ''): Diagnostic => ({ file, property, message: 'is wrong', code: 'yaml', severity: 'error', line: 1, column: 1 });
const gate = (id: string): RepoEntity => ({ folder: 'gates', kind: 'gate', id, file: `gates/${id}.yaml`, data: { id, name: id } });
const base = (diagnostics: Diagnostic[], entities: RepoEntity[] = []): LoadedRepo => ({ label: 'git main', config: RepoConfigSchema.parse({}), entities, diagnostics, fileCount: entities.length, flagTests: [] });

describe('unreadBaseWarning', () => {
  it('names each base file that declared nothing because it did not load, once', () => {
    expect(unreadBaseWarning(base([error('gates/a.yaml'), error('gates/a.yaml', 'name'), error('segments/b.yaml')]))).toBe(
      '2 files of the base git main could not be read or do not validate: gates/a.yaml, segments/b.yaml. Their entities are treated as absent at the base, so a change to one shows as a create.',
    );
  });

  it('leaves out files whose entity loaded (a broken reference), flagops.yaml and warnings: nothing of theirs is missing', () => {
    const warning: Diagnostic = { ...error('gates/sub/'), severity: 'warning' };
    expect(unreadBaseWarning(base([error('gates/linked.yaml', 'rules[0].conditions[0].targetValue[0]'), error('flagops.yaml'), warning], [gate('linked')]))).toBeUndefined();
  });

  it('names ten files and counts the rest', () => {
    const files = Array.from({ length: 12 }, (_, i) => `gates/g${String(i).padStart(2, '0')}.yaml`);
    const text = unreadBaseWarning(base(files.map((f) => error(f)))) ?? '';
    expect(text).toContain(`: ${files.slice(0, 10).join(', ')} and 2 more. Their entities`);
    expect(text.startsWith('12 files of the base git main')).toBe(true);
  });
});
