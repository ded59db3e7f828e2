import { ENTITY_SCHEMAS } from '../../../schemas/index.js';
import { assignmentSourceKind } from './assignment-source-kind.js';
import { declaredKind } from './declared-kind.js';
import { dynamicConfigKind } from './dynamic-config-kind.js';
import { experimentKind } from './experiment-kind.js';
import { gateKind } from './gate-kind.js';
import { holdoutKind } from './holdout-kind.js';
import type { KindDef } from './kind-def.js';
import { layerKind } from './layer-kind.js';
import { promptKind } from './prompt-kind.js';
import { segmentKind } from './segment-kind.js';

/** Kinds the console does more for than create, read, update and delete. */
const WITH_BEHAVIOUR = new Map([segmentKind, gateKind, dynamicConfigKind, layerKind, assignmentSourceKind, experimentKind, holdoutKind, promptKind].map((def) => [def.kind, def]));

/** Every declared entity kind the console serves, in the declaration's dependency order. */
export const ALL_KINDS: readonly KindDef[] = ENTITY_SCHEMAS.map((entry) => WITH_BEHAVIOUR.get(entry.kind) ?? declaredKind(entry.kind));
