import { z } from 'zod';
import { isHttpUrl } from './http-url.js';

/** Longest review-specific message a receiver may set. */
export const VALIDATION_MESSAGE_MAX = 4000;

const ReviewIdSchema = z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters long').describe('The review_id of the webhook payload.');
const MessageSchema = z
  .string()
  .max(VALIDATION_MESSAGE_MAX, `must be at most ${VALIDATION_MESSAGE_MAX} characters long`)
  .describe('Shown to users with the review; replaces the previous review-specific message.');

export const DebugLinkSchema = z
  .strictObject({
    title: z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters long').describe('Link text.'),
    // Shown to users as a link: javascript: or data: would run in the console's page.
    url: z
      .string()
      .max(2000, 'must be at most 2000 characters long')
      .refine(isHttpUrl, 'must be an absolute http or https URL')
      .describe('Where the receiver logs or reports its validation: an absolute http or https URL.'),
  })
  .meta({ id: 'DebugLink', description: 'A link the webhook receiver attaches to a review (CI run, logs).' });

export const ChangeValidationSchema = z
  .strictObject({
    reviewID: ReviewIdSchema,
    validated: z.boolean().optional().describe('true approves the change (it becomes committable), false blocks it; leave out to only update the message.'),
    message: MessageSchema.optional(),
    debugLinks: z.array(DebugLinkSchema).max(20, 'must have at most 20 links').optional().describe('Links shown with the review; replace earlier ones.'),
  })
  .meta({ id: 'ChangeValidation', description: 'Body of POST /change_validation: a decision, or only a progress message.' });

export type ChangeValidation = z.infer<typeof ChangeValidationSchema>;

export const ChangeValidationMessageSchema = z
  .strictObject({ reviewID: ReviewIdSchema, message: MessageSchema })
  .meta({ id: 'ChangeValidationMessage', description: 'Body of PATCH /change_validation/message: replaces the review-specific message.' });
