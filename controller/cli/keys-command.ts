import { KeyCreateSchema } from '../../schemas/key.js';
import type { NewKey } from '../console/auth-service.js';
import { parseWith } from '../core/zod-errors.js';
import { InputError } from '../errors.js';
import { openKeyAdmin } from '../compose.js';
import { booleanOption, stringOption, type Command, type ParsedArgs } from './command.js';

/** The option each field of POST /keys comes from, so errors name what the user typed. */
const OPTION_OF: Readonly<Record<string, string>> = {
  description: '--description',
  type: '--type',
  userEmail: '--email',
  role: '--role',
  scopes: '--read-only',
  environments: '--environments',
  targetAppID: '--target-app',
  secondaryTargetAppIDs: '--secondary-target-apps',
};

const optionOf = (property: string): string => {
  const [field = property, ...rest] = property.split(/(?=\[)/);
  return `${OPTION_OF[field] ?? field}${rest.join('')}`;
};

/** A comma-separated list option; absent stays absent. */
function listOption(args: ParsedArgs, name: string): string[] | undefined {
  const value = stringOption(args, name);
  return value === undefined ? undefined : value.split(',').map((item) => item.trim());
}

export const keysCommand: Command = {
  name: 'keys',
  summary: 'Create an API key directly in a console database',
  usage: `Usage: flagops keys create --db PATH|postgres://URL --email E --role R [--description TEXT] [--read-only]
                           [--type CONSOLE|SERVER|CLIENT] [--environments E1,E2] [--target-app APP] [--secondary-target-apps A1,A2]

  Prints the new key's secret to stdout (shown once). A CONSOLE key (the default) needs --role; its
  user is created with the role when new. SERVER and CLIENT keys are SDK keys: they take no --role and
  belong to an existing user (--email). --environments and --target-app limit what a CONSOLE key may change.`,
  options: {
    db: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string' },
    description: { type: 'string' },
    'read-only': { type: 'boolean' },
    type: { type: 'string' },
    environments: { type: 'string' },
    'target-app': { type: 'string' },
    'secondary-target-apps': { type: 'string' },
  },
  allowPositionals: true,
  async run(args, io) {
    const [sub] = args.positionals;
    if (sub !== 'create') throw new InputError(`Unknown keys subcommand '${sub ?? ''}': use 'flagops keys create'.`);
    const type = stringOption(args, 'type')?.toUpperCase();
    const required = type === undefined || type === 'CONSOLE' ? ['db', 'email', 'role'] : ['db', 'email'];
    const missing = required.filter((name) => stringOption(args, name) === undefined);
    if (missing.length > 0) throw new InputError('Missing options.', missing.map((name) => ({ property: `--${name}`, errorMessage: 'is required' })));
    const parsed = parseWith(KeyCreateSchema, {
      description: stringOption(args, 'description') ?? 'created with flagops keys create',
      type,
      userEmail: stringOption(args, 'email'),
      role: stringOption(args, 'role'),
      scopes: booleanOption(args, 'read-only') ? ['omni_read_only'] : undefined,
      environments: listOption(args, 'environments'),
      targetAppID: stringOption(args, 'target-app'),
      secondaryTargetAppIDs: listOption(args, 'secondary-target-apps'),
    });
    if (!parsed.ok) throw new InputError('Invalid options.', parsed.errors.map((e) => ({ ...e, property: optionOf(e.property) })));
    const { auth, close } = await openKeyAdmin(stringOption(args, 'db') ?? '');
    try {
      let created;
      try {
        created = await auth.createKey(parsed.value as NewKey);
      } catch (error) {
        if (error instanceof InputError) throw new InputError(error.message, error.errors.map((e) => ({ ...e, property: optionOf(e.property) })));
        throw error;
      }
      const { key, secret } = created;
      io.stdout(`${secret}\n`);
      io.stderr(`Created ${key.type === 'CONSOLE' ? 'key' : `${key.type} key`} ${key.id} for ${key.userEmail}${key.role === null ? '' : ` (role ${key.role})`}.\n`);
      return 0;
    } finally {
      await close();
    }
  },
};
