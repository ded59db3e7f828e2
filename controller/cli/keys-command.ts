import { AuthService } from '../console/auth-service.js';
import { InputError } from '../errors.js';
import { openStore } from '../compose.js';
import { booleanOption, stringOption, type Command } from './command.js';

export const keysCommand: Command = {
  name: 'keys',
  summary: 'Create a console API key directly in a console database',
  usage: `Usage: flagops keys create --db PATH|postgres://URL --email E --role R [--description TEXT] [--read-only]

  Prints the new key's secret to stdout (shown once). The user is created with the role when new.`,
  options: {
    db: { type: 'string' },
    email: { type: 'string' },
    role: { type: 'string' },
    description: { type: 'string' },
    'read-only': { type: 'boolean' },
  },
  allowPositionals: true,
  async run(args, io) {
    const [sub] = args.positionals;
    if (sub !== 'create') throw new InputError(`Unknown keys subcommand '${sub ?? ''}': use 'flagops keys create'.`);
    const missing = ['db', 'email', 'role'].filter((name) => stringOption(args, name) === undefined);
    if (missing.length > 0) throw new InputError('Missing options.', missing.map((name) => ({ property: `--${name}`, errorMessage: 'is required' })));
    // A key is written once and must survive anything: the durable mode whatever the console runs with.
    const store = openStore(stringOption(args, 'db') ?? '', { durability: 'full' });
    try {
      await store.open?.();
      const auth = new AuthService({ store, clock: Date.now });
      await auth.ensureBuiltinRoles();
      const { key, secret } = await auth.createKey({
        description: stringOption(args, 'description') ?? 'created with flagops keys create',
        userEmail: stringOption(args, 'email') ?? '',
        role: stringOption(args, 'role') ?? '',
        scopes: booleanOption(args, 'read-only') ? ['omni_read_only'] : [],
      });
      io.stdout(`${secret}\n`);
      io.stderr(`Created key ${key.id} for ${key.userEmail} (role ${key.role}).\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
