import { compileConfigSpecs } from '../controller/core/eval/compile-config-specs.js';
import { SpecEvaluator } from '../controller/core/eval/evaluate-spec.js';
import { FlagIndex, evaluateFlag } from '../controller/core/eval/flag-keys.js';
import { userFromContext } from '../controller/core/eval/ofrep-context.js';
import { ofrepAnswer } from '../controller/console/evaluation/ofrep-answer.js';
import { engineCapabilities } from '../controller/console/evaluation/engine-capabilities.js';
import { createHash } from 'node:crypto';
const gates = []; const configs = [];
for (let i = 0; i < 1000; i++) {
  if (i % 10 === 9) configs.push({ id: `config_${i}`, name: `config ${i}`, isEnabled: true, defaultValue: { limit: 10 }, rules: [{ name: 'staff', passPercentage: 100, conditions: [{ type: 'passes_segment', targetValue: ['staff'] }], returnValue: { limit: 100 } }] });
  else gates.push({ id: `gate_${i}`, name: `gate ${i}`, isEnabled: true, rules: [
    { name: 'staff', passPercentage: 100, conditions: [{ type: 'passes_segment', targetValue: ['staff'] }] },
    { name: 'email', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@partner.example'] }] },
    { name: 'country', passPercentage: 50, conditions: [{ type: 'country', operator: 'any', targetValue: ['DE', 'FR'] }] },
    { name: 'rollout', passPercentage: 20, conditions: [{ type: 'public' }] }] });
}
const segments = [{ id: 'staff', name: 'staff', type: 'rule_based', rules: [{ name: 'acme', passPercentage: 100, conditions: [{ type: 'email', operator: 'str_ends_with_any', targetValue: ['@acme.example'] }] }] }];
const specs = compileConfigSpecs({ gates, dynamicConfigs: configs, segments, experiments: [], layers: [], holdouts: [] } as never, { environments: [], targetApps: [], time: 1 });
const evaluator = new SpecEvaluator(specs, engineCapabilities());
const flags = new FlagIndex(specs);
const times: number[] = [];
for (let i = 0; i < 3000; i++) {
  const t = performance.now();
  const parsed = userFromContext({ targetingKey: `user-${i}`, email: 'bob@other.example', country: i % 2 ? 'DE' : 'US' });
  if ('problem' in parsed) throw new Error('x');
  const ctx = { gateMemo: new Map() };
  const out = flags.all().map(({ key, ref }) => { const { evaluation, value } = evaluateFlag(evaluator, ref, parsed.user, ctx); return ofrepAnswer(key, ref, evaluation, value); });
  const body = JSON.stringify({ flags: out });
  createHash('sha256').update(body).digest('base64url');
  times.push(performance.now() - t);
}
const last = times.slice(1000).sort((a, b) => a - b);
console.log('median', last[last.length >> 1]!.toFixed(2), 'p99', last[Math.floor(last.length * 0.99)]!.toFixed(2));
