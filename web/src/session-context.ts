import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { z } from 'zod';
import type { WhoAmISchema } from '../../schemas/key.js';
import type { Permission } from '../../schemas/role.js';
import type { Api } from './api.js';

export type WhoAmI = z.infer<typeof WhoAmISchema>;

export interface Session {
  api: Api;
  me: WhoAmI;
  /** Whether the signed-in key holds the permission (from /whoami, read-only scope included). */
  can(permission: Permission): boolean;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}
