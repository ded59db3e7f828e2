import { z } from 'zod';

/**
 * The pre-commit webhook payload as the bridge reads it. It is a notification: it says which review
 * to judge, and the bridge judges the review the console holds, never the configs the payload carries
 * (old_config, new_config, old_experiment, new_experiment: kept, unread).
 */
export const PrecommitPayloadSchema = z.looseObject({
  review_id: z.string().min(1),
  submitter: z.string(),
  committer: z.string(),
  config_type: z.string().min(1),
  config_name: z.string().optional(),
  experiment_name: z.string().optional(),
  type: z.string().min(1),
  description: z.string().optional(),
});

export type PrecommitPayload = z.infer<typeof PrecommitPayloadSchema>;
