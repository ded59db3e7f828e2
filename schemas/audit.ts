import { z } from 'zod';

export const AuditEntrySchema = z
  .strictObject({
    id: z.string().describe('Monotonic entry id.'),
    time: z.number().describe('Epoch milliseconds.'),
    actorEmail: z.string().describe('User who made the change.'),
    actorKeyId: z.string().nullable().describe('Key the change was made with.'),
    action: z.string().describe('create, update, patch, delete, enable, start, commit_review, ...'),
    kind: z.string().describe('gate, dynamic_config, segment, experiment, layer, holdout, prompt, assignment_source, settings, ...'),
    entityId: z.string().describe('Id (or name) of the changed entity.'),
    version: z.number().int().nullable().describe('Entity version after the change.'),
    reviewId: z.string().nullable().describe('Review the change was committed from.'),
    details: z.record(z.string(), z.unknown()).nullable().describe('Extra facts, e.g. a bypassed validation.'),
  })
  .meta({ id: 'AuditEntry', description: 'One row of the audit log.' });
