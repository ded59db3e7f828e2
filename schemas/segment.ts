import { z } from 'zod';
import {
  CREATOR_DEFAULTS,
  ActiveReviewShape,
  CreatorShape,
  DescriptionSchema,
  EntityIdSchema,
  EntityNameSchema,
  PermalinkShape,
  ServerFieldsShape,
  TagsSchema,
  TEAM_DEFAULTS,
  TeamShape,
} from './common.js';
import { GateRuleSchema, RuleResponseShape } from './rule.js';

export const SEGMENT_TYPES = ['rule_based', 'id_list'] as const;

const fields = {
  name: EntityNameSchema,
  description: DescriptionSchema,
  type: z.enum(SEGMENT_TYPES).describe('rule_based (conditions like gate rules) or id_list (explicit unit ids).'),
  idType: z.string().min(1, 'must not be empty').describe('Unit ID type.'),
  tags: TagsSchema,
  rules: z.array(GateRuleSchema).describe('Rules of a rule_based segment; must be empty for id_list.'),
  ids: z.array(z.string().min(1, 'must not be empty')).describe('Unit ids of an id_list segment; must be empty for rule_based.'),
  ...CreatorShape,
  ...TeamShape,
};

export const SegmentWritableSchema = z.strictObject(fields);
export type SegmentWritable = z.infer<typeof SegmentWritableSchema>;

export const SEGMENT_DEFAULTS: Omit<SegmentWritable, 'name' | 'type'> = {
  description: '',
  idType: 'userID',
  tags: [],
  rules: [],
  ids: [],
  ...CREATOR_DEFAULTS,
  ...TEAM_DEFAULTS,
};

export const SegmentCreateSchema = z
  .strictObject({ ...fields, id: EntityIdSchema.describe('Segment id; derived from name when missing.') })
  .partial()
  .required({ name: true, type: true })
  .meta({ id: 'SegmentCreate', description: 'Body of POST /segments.' });

export const SegmentUpdateSchema = SegmentWritableSchema.partial()
  .required({ type: true })
  .meta({ id: 'SegmentFullUpdate', description: 'Body of POST /segments/{id}: fields left out take their defaults.' });

export const SegmentPatchSchema = SegmentWritableSchema.partial().meta({
  id: 'SegmentPartialUpdate',
  description: 'Body of PATCH /segments/{id}: only the supplied fields change.',
});

export const SegmentIdsSchema = z
  .strictObject({ ids: z.array(z.string().min(1, 'must not be empty')).min(1, 'must name at least one id') })
  .meta({ id: 'SegmentIDList', description: 'Body of PATCH /segments/{id}/add_ids and /remove_ids.' });

/** Most ids one id_list write takes (the reference's limit). */
export const MAX_ID_LIST_WRITE = 100_000;

const idListIds = z.array(z.string().min(1, 'must not be empty')).max(MAX_ID_LIST_WRITE, `must name at most ${MAX_ID_LIST_WRITE} ids`);

export const SegmentIdListChangeSchema = z
  .strictObject({ ids: idListIds.min(1, 'must name at least one id').describe('Unit ids to add or remove.') })
  .meta({ id: 'SegmentIDListChange', description: 'Body of PATCH /segments/{id}/id_list (add) and DELETE /segments/{id}/id_list (remove).' });

export const SegmentIdListResetSchema = z
  .strictObject({ ids: idListIds.describe('The whole new list of unit ids; empty clears it.') })
  .meta({ id: 'SegmentIDListReset', description: 'Body of POST /segments/{id}/id_list/reset: the ids replace the list.' });

export const SegmentIdListReadSchema = z
  .strictObject({
    name: z.string().describe("The segment's name."),
    count: z.number().int().describe('Number of ids in the list.'),
    ids: z.array(z.string()).describe('The unit ids.'),
  })
  .meta({ id: 'SegmentIDListRead', description: 'Data of GET /segments/{id}/id_list.' });

export const SegmentSchema = z
  .strictObject({
    id: EntityIdSchema,
    ...fields,
    rules: z.array(GateRuleSchema.extend(RuleResponseShape)),
    count: z.number().int().describe('Number of ids of an id_list segment.'),
    status: z.enum(['Active', 'Archived']).describe('Archived while archived (PUT .../archive, .../unarchive), else Active.'),
    ...ActiveReviewShape,
    ...ServerFieldsShape,
    ...PermalinkShape,
  })
  .meta({ id: 'Segment', description: 'A segment as the console returns it.' });

export type Segment = z.infer<typeof SegmentSchema>;
