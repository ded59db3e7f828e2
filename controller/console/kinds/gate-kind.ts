import { GateOverridesChangeSchema, GateOverridesSchema } from '../../../schemas/gate.js';
import { GateRuleRequests } from '../../../schemas/rule-requests.js';
import { gateRuleErrors } from '../../core/gate-rules.js';
import { GATE_OVERRIDES, normalizeOverrides, readOverrides } from '../../core/override-rules.js';
import type { JsonObject } from '../../store/ports.js';
import { ARCHIVED, assertNotArchived as refuseWhenArchived } from './archive-actions.js';
import { refusedWhileReferenced } from './entity-references.js';
import { holdoutIDsFor } from './holdout-ids.js';
import { declaredKind } from './declared-kind.js';
import type { KindDef } from './kind-def.js';
import { overrideEndpoints, refusedWhileOverridden } from './override-endpoints.js';
import { withRuleIds } from './rule-ids.js';
import { equals, hasTag } from './list-filters.js';
import { ruleSubresource } from './rule-actions.js';

const assertNotArchived = (gate: JsonObject): void => refuseWhenArchived(gate, 'Gate');

const rules = ruleSubresource({ label: 'Gate', schemas: GateRuleRequests, validate: gateRuleErrors });

const overrides = overrideEndpoints({ ...GATE_OVERRIDES, label: 'Gate', schemas: { data: GateOverridesSchema, replace: GateOverridesChangeSchema, change: GateOverridesChangeSchema } });

const referenced = refusedWhileReferenced('gate', 'Gate');
const overridden = refusedWhileOverridden('gate', 'Gate');

export const gateKind: KindDef = declaredKind('gate', {
  initial: () => ({ status: 'In Progress', typeReason: 'NONE', isTemplate: false }),
  createOnly: ['isTemplate'],
  prepare: (gate, previous) => normalizeOverrides(GATE_OVERRIDES, { ...gate, rules: withRuleIds(gate['rules'], previous?.['rules']) }),
  decorate: (gate, lookup) => ({
    checksPerHour: 0,
    store0100Exposures: false,
    holdoutIDs: holdoutIDsFor('gate', gate, lookup),
    // A gate stored before gates had overrides reads with empty lists.
    ...(gate['overrides'] === undefined ? { overrides: readOverrides(GATE_OVERRIDES, gate) } : {}),
  }),
  deleteBlocker: (id, lookup) => referenced(id, lookup) ?? overridden(id, lookup),
  actions: {
    ...overrides.actions,
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
  views: { ...rules.views, ...overrides.views },
  filters: {
    type: equals('type'),
    idType: equals('idType'),
    tags: hasTag,
  },
});
