import type { ChangeAction } from '../../core/change-type.js';
import { InputError, type FieldError } from '../../errors.js';
import type { EntityOp, EntityService } from '../entity-service.js';
import type { EntityRepo, JsonObject } from '../../store/ports.js';
import { labelInSentence } from '../kinds/kind-def.js';

/** Review actions that are entity lifecycle actions, and the kind action each runs. */
const LIFECYCLE: Readonly<Record<string, string>> = { start: 'start', ship: 'make_decision', abandon: 'abandon' };

/**
 * The entity operation a review proposes: the same operation a direct write would run, so
 * EntityService.prepare validates it with the same rules. Throws InputError naming the review
 * body's properties when the combination of action, change and group makes no sense.
 */
export async function reviewOp(service: EntityService, entities: Pick<EntityRepo, 'get'>, id: string, action: ChangeAction, body: { change?: JsonObject; group?: string }): Promise<EntityOp> {
  const errors: FieldError[] = [];
  const { def } = service;
  if (action !== 'create' && action !== 'update' && action !== 'delete') {
    const name = LIFECYCLE[action] ?? action;
    if (!def.actions?.[name]) errors.push({ property: 'action', errorMessage: `'${action}' is not available for ${labelInSentence(def.label)}s` });
  }
  if (body.group !== undefined && action !== 'ship') errors.push({ property: 'group', errorMessage: "is only allowed with action 'ship'" });
  if ((action === 'update' || action === 'create') && body.change === undefined) errors.push({ property: 'change', errorMessage: 'is required' });
  if (action === 'delete' && body.change !== undefined) errors.push({ property: 'change', errorMessage: "is not allowed with action 'delete'" });
  if (action === 'create' && body.change?.['id'] !== undefined && body.change['id'] !== id) {
    errors.push({ property: 'change.id', errorMessage: `must equal the id in the path (${id}) or be left out` });
  }
  if (action === 'ship' && body.group !== undefined && body.change !== undefined) errors.push({ property: 'group', errorMessage: 'give the group either here or in change, not both' });
  if (errors.length > 0) throw new InputError('Invalid review.', errors);

  switch (action) {
    case 'update':
      return { type: 'patch', id, body: body.change };
    case 'create':
      return { type: 'create', body: { ...body.change, id } };
    case 'delete':
      return { type: 'delete', id };
    case 'ship':
      return { type: 'action', id, action: 'make_decision', body: body.change ?? (body.group === undefined ? undefined : groupBody((await entities.get(def.kind, id))?.data, body.group)) };
    default:
      return { type: 'action', id, action: LIFECYCLE[action] ?? action, body: body.change };
  }
}

/** `group` names a group by id or by name; make_decision takes either. */
function groupBody(experiment: JsonObject | undefined, group: string): JsonObject {
  const groups = Array.isArray(experiment?.['groups']) ? (experiment['groups'] as JsonObject[]) : [];
  return groups.some((g) => g['id'] === group) ? { id: group } : { name: group };
}

/**
 * Field errors of the entity operation, renamed to the request property they came from:
 * `change.rules[0].name`, or `group` when the group to ship was given that way.
 */
export function asSubmissionError(error: unknown, via: 'change' | 'group'): unknown {
  if (!(error instanceof InputError)) return error;
  const errors = error.errors.map((e) => ({ ...e, property: via === 'group' ? 'group' : e.property === '(body)' ? 'change' : `change.${e.property}` }));
  return new InputError(error.message, errors);
}
