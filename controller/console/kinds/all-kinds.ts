import { dynamicConfigKind } from './dynamic-config-kind.js';
import { gateKind } from './gate-kind.js';
import type { KindDef } from './kind-def.js';
import { segmentKind } from './segment-kind.js';

/** Every entity kind the console serves, in dependency order (what others refer to comes first). */
export const ALL_KINDS: readonly KindDef[] = [segmentKind, gateKind, dynamicConfigKind];
