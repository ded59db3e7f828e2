import type { FastifyInstance } from 'fastify';
import { PrecommitWebhookSettingsSchema, PrecommitWebhookSettingsUpdateSchema, ReviewsSettingsSchema } from '../../../schemas/settings.js';
import { defineRoute } from '../http/define-route.js';
import type { RouteCatalog } from '../http/route-catalog.js';
import type { SettingsService } from '../reviews/settings-service.js';

/** Review and pre-commit webhook settings: admin only (manage_settings), every change audited. */
export function registerSettingsRoutes(app: FastifyInstance, catalog: RouteCatalog, settings: SettingsService): void {
  const tag = 'Settings';
  defineRoute(app, catalog, { method: 'GET', url: '/console/v1/settings/reviews', summary: 'Read the review settings', tag, permission: 'manage_settings', response: ReviewsSettingsSchema }, async () => ({
    message: 'Settings read successfully.',
    data: await settings.reviews(),
  }));
  defineRoute(app, catalog, { method: 'POST', url: '/console/v1/settings/reviews', summary: 'Update the review settings', tag, permission: 'manage_settings', body: ReviewsSettingsSchema, response: ReviewsSettingsSchema }, async (request, actor) => ({
    message: 'Settings updated successfully.',
    data: await settings.updateReviews(request.body, actor),
  }));
  defineRoute(app, catalog, { method: 'GET', url: '/console/v1/settings/precommit_webhook', summary: 'Read the pre-commit webhook settings (the key is never shown)', tag, permission: 'manage_settings', response: PrecommitWebhookSettingsSchema }, async () => ({
    message: 'Settings read successfully.',
    data: await settings.webhook(),
  }));
  defineRoute(
    app,
    catalog,
    { method: 'POST', url: '/console/v1/settings/precommit_webhook', summary: 'Update the pre-commit webhook settings; an empty webhookURL turns the webhook off', tag, permission: 'manage_settings', body: PrecommitWebhookSettingsUpdateSchema, response: PrecommitWebhookSettingsSchema },
    async (request, actor) => ({
      message: 'Settings updated successfully.',
      data: await settings.updateWebhook(request.body, actor),
    }),
  );
}
