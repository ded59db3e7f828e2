import { DynamicConfigRuleRequests } from '../../../schemas/rule-requests.js';
import { dynamicConfigRuleErrors, withDerivedJson, withSuppliedTwins } from '../../core/dynamic-config-rules.js';
import type { JsonObject } from '../../store/ports.js';
import { ARCHIVE_ACTIONS, ARCHIVED, assertNotArchived, isArchived } from './archive-actions.js';
import { holdoutIDsFor } from './holdout-ids.js';
import { declaredKind } from './declared-kind.js';
import type { KindDef } from './kind-def.js';
import { equals, hasTag } from './list-filters.js';
import { ruleSubresource } from './rule-actions.js';
import { withRuleIds } from './rule-ids.js';

const rules = ruleSubresource({ label: 'Dynamic config', schemas: DynamicConfigRuleRequests, validate: dynamicConfigRuleErrors });

export const dynamicConfigKind: KindDef = declaredKind('dynamic_config', {
  initial: () => ({ isTemplate: false }),
  createOnly: ['isTemplate'],
  prepare: (config, previous, supplied) =>
    withDerivedJson({ ...withSuppliedTwins(config, supplied), rules: withRuleIds(config['rules'], previous?.['rules'], 'variants') }),
  decorate: (config, lookup) => ({
    holdoutIDs: holdoutIDsFor('dynamic_config', config, lookup),
    status: isArchived(config) ? ARCHIVED : config['isEnabled'] === true ? 'Enabled' : 'Disabled',
  }),
  actions: {
    enable: { done: 'enabled', apply: (c: JsonObject) => (assertNotArchived(c, 'Dynamic config'), { ...c, isEnabled: true }) },
    disable: { done: 'disabled', apply: (c: JsonObject) => (assertNotArchived(c, 'Dynamic config'), { ...c, isEnabled: false }) },
    ...ARCHIVE_ACTIONS,
    ...rules.actions,
  },
  views: rules.views,
  filters: {
    idType: equals('idType'),
    tags: hasTag,
  },
  dryRun: 'query',
});
