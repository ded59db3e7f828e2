import { GATE_DEFAULTS, GateCreateSchema, GatePatchSchema, GateSchema, GateUpdateSchema } from '../../../schemas/gate.js';
import { GateRuleRequests } from '../../../schemas/rule-requests.js';
import { gateRuleErrors } from '../../core/gate-rules.js';
import type { JsonObject } from '../../store/ports.js';
import { ARCHIVED, assertNotArchived as refuseWhenArchived } from './archive-actions.js';
import { refusedWhileReferenced } from './entity-references.js';
import { holdoutIDsFor } from './holdout-ids.js';
import type { KindDef } from './kind-def.js';
import { withRuleIds } from './rule-ids.js';
import { hasTag } from './list-filters.js';
import { ruleSubresource } from './rule-actions.js';

const assertNotArchived = (gate: JsonObject): void => refuseWhenArchived(gate, 'Gate');

const rules = ruleSubresource({ label: 'Gate', schemas: GateRuleRequests, validate: gateRuleErrors });

export const gateKind: KindDef = {
  kind: 'gate',
  path: 'gates',
  label: 'Gate',
  tag: 'Gates',
  idField: 'id',
  schemas: { create: GateCreateSchema, update: GateUpdateSchema, patch: GatePatchSchema, response: GateSchema },
  defaults: GATE_DEFAULTS,
  initial: () => ({ status: 'In Progress', typeReason: 'NONE', isTemplate: false }),
  createOnly: ['isTemplate'],
  prepare: (gate, previous) => ({ ...gate, rules: withRuleIds(gate['rules'], previous?.['rules']) }),
  validate: gateRuleErrors,
  decorate: (gate, lookup) => ({ checksPerHour: 0, store0100Exposures: false, holdoutIDs: holdoutIDsFor('gate', gate, lookup) }),
  deleteBlocker: refusedWhileReferenced('gate', 'Gate'),
  actions: {
    enable: { done: 'enabled', apply: (g) => (assertNotArchived(g), { ...g, isEnabled: true }) },
    disable: { done: 'disabled', apply: (g) => (assertNotArchived(g), { ...g, isEnabled: false }) },
    launch: {
      done: 'launched',
      apply: (g) => {
        assertNotArchived(g);
        return { ...g, status: 'Launched', isEnabled: true };
      },
    },
    archive: {
      done: 'archived',
      apply: (g) => (g['status'] === ARCHIVED ? g : { ...g, status: ARCHIVED, statusBeforeArchive: g['status'] }),
    },
    unarchive: {
      done: 'unarchived',
      apply: (g) => {
        if (g['status'] !== ARCHIVED) return g;
        const { statusBeforeArchive, ...rest } = g;
        return { ...rest, status: statusBeforeArchive === 'Launched' ? 'Launched' : 'In Progress' };
      },
    },
    ...rules.actions,
  },
  views: rules.views,
  filters: {
    type: (g, v) => g['type'] === v,
    idType: (g, v) => g['idType'] === v,
    tags: hasTag,
  },
  deletable: true,
};
