import { assignmentSourceKind } from './assignment-source-kind.js';
import { dynamicConfigKind } from './dynamic-config-kind.js';
import { experimentKind } from './experiment-kind.js';
import { gateKind } from './gate-kind.js';
import { holdoutKind } from './holdout-kind.js';
import type { KindDef } from './kind-def.js';
import { layerKind } from './layer-kind.js';
import { promptKind } from './prompt-kind.js';
import { segmentKind } from './segment-kind.js';

/** Every entity kind the console serves, in dependency order (what others refer to comes first). */
export const ALL_KINDS: readonly KindDef[] = [
  segmentKind,
  gateKind,
  dynamicConfigKind,
  layerKind,
  // Before experiments, which name them (assignmentSourceName).
  assignmentSourceKind,
  experimentKind,
  holdoutKind,
  promptKind,
];
