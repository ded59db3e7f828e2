import type { FastifyInstance } from 'fastify';
import { EvaluateRequestSchema, EvaluationResultSchema } from '../../../schemas/evaluation.js';
import { explain } from '../../core/eval/explain.js';
import { evaluateFlag } from '../../core/eval/flag-keys.js';
import { parseWith } from '../../core/zod-errors.js';
import { InputError, NotFoundError } from '../../errors.js';
import type { CompiledSpecsCache } from '../evaluation/compiled-specs.js';
import { defineRoute } from '../http/define-route.js';
import type { RouteCatalog } from '../http/route-catalog.js';

/**
 * `POST /console/v1/evaluate`: what a user gets from a flag, and why — the value, the deciding rule
 * and every rule before it. A CONSOLE key with `read` may call it (the web console's "try it",
 * `flagops eval --console`); it evaluates what is stored, in the environment asked for.
 */
export function registerEvaluateRoutes(app: FastifyInstance, catalog: RouteCatalog, specs: CompiledSpecsCache): void {
  defineRoute(
    app,
    catalog,
    { method: 'POST', url: '/console/v1/evaluate', summary: 'Evaluate a gate, dynamic config, experiment or layer for a user, with the deciding rule and the trail', tag: 'Evaluation', permission: 'read', body: EvaluateRequestSchema, response: EvaluationResultSchema },
    async (request) => {
      const parsed = parseWith(EvaluateRequestSchema, request.body ?? {});
      if (!parsed.ok) throw new InputError('Invalid request body.', parsed.errors);
      const { flag, user, environment } = parsed.value;
      // A CONSOLE key's environments and target apps limit what it changes, not what it reads.
      const compiled = await specs.forScope({ environments: environment != null ? [environment] : [], targetApps: [] });
      const found = compiled.flags.lookup(flag);
      if ('error' in found) {
        if (found.error === 'not_found') throw new NotFoundError(found.message);
        throw new InputError('Invalid request body.', [{ property: 'flag', errorMessage: found.message }]);
      }
      const { evaluation, value } = evaluateFlag(compiled.evaluator, found.found, user);
      return { message: 'Flag evaluated.', data: explain(flag, found.found, environment ?? null, evaluation, value) };
    },
  );
}
