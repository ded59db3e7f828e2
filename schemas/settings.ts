import { z } from 'zod';
import { hasUrlCredentials, isHttpUrl } from './http-url.js';

/** Longest company-level message shown to users while a change waits for validation. */
export const INITIAL_MESSAGE_MAX = 1000;

export const ReviewsSettingsSchema = z
  .strictObject({
    is_config_review_required: z
      .boolean()
      .describe('When true, direct writes to gates, dynamic configs, segments and experiments need the bypass_reviews permission; everyone else goes through reviews.'),
  })
  .meta({ id: 'ReviewsSettings', description: 'Project review settings (GET and POST /settings/reviews).' });

export type ReviewsSettings = z.infer<typeof ReviewsSettingsSchema>;

const WebhookUrlSchema = z
  .string()
  .max(2000, 'must be at most 2000 characters long')
  .refine((text) => text === '' || isHttpUrl(text), 'must be an http or https URL, or empty to turn the webhook off')
  // It would show in audit rows and reads; the receiver authenticates the console by webhookKey.
  .refine((text) => !hasUrlCredentials(text), 'must not carry a user name or password (user:password@); the receiver checks webhookKey instead')
  .describe('Where the pre-commit webhook is POSTed; an empty string turns the webhook off. A new URL needs webhookKey in the same update: the stored key is never sent to a URL set without it.');

export const PrecommitWebhookSettingsUpdateSchema = z
  .strictObject({
    webhookURL: WebhookUrlSchema.optional(),
    webhookKey: z
      .string()
      .max(500, 'must be at most 500 characters long')
      .optional()
      .describe('Sent as the x-service-webhook-key header. Write-only: reads show hasWebhookKey. Left out, the stored key is kept while webhookURL stays; required when webhookURL changes to another URL, cleared when it changes to empty.'),
    initialMessage: z
      .string()
      .max(INITIAL_MESSAGE_MAX, `must be at most ${INITIAL_MESSAGE_MAX} characters long`)
      .optional()
      .describe('Company-level message users see while a change is pending validation.'),
  })
  .meta({ id: 'PrecommitWebhookSettingsUpdate', description: 'Body of POST /settings/precommit_webhook: fields left out keep their value.' });

export type PrecommitWebhookSettingsUpdate = z.infer<typeof PrecommitWebhookSettingsUpdateSchema>;

export const PrecommitWebhookSettingsSchema = z
  .strictObject({
    webhookURL: z.string().describe('Webhook URL; empty when the webhook is off.'),
    hasWebhookKey: z.boolean().describe('Whether a webhook key is set (the key itself is never shown).'),
    initialMessage: z.string().describe('Company-level message shown while a change is pending validation.'),
    enabled: z.boolean().describe('True when a URL is set: approved changes of a triggering type are validated before commit.'),
  })
  .meta({ id: 'PrecommitWebhookSettings', description: 'Pre-commit webhook settings as GET /settings/precommit_webhook returns them.' });

export type PrecommitWebhookSettings = z.infer<typeof PrecommitWebhookSettingsSchema>;
