import {
  PrecommitWebhookSettingsUpdateSchema,
  ReviewsSettingsSchema,
  type PrecommitWebhookSettings,
  type ReviewsSettings,
} from '../../../schemas/settings.js';
import { withoutUrlCredentials } from '../../../schemas/http-url.js';
import { REVIEWABLE_KINDS } from '../../../schemas/review.js';
import { parseWith } from '../../core/zod-errors.js';
import { InputError, NotAllowedError } from '../../errors.js';
import type { JsonObject, Store, StoreRepos } from '../../store/ports.js';
import { assertCallerUnlimited } from '../key-scope.js';
import type { Actor } from '../permissions.js';

const REVIEWS = 'reviews';
const WEBHOOK = 'precommit_webhook';

/** What the dispatcher needs to send the webhook. Holds the key: never put it in a response or a log. */
export interface WebhookTarget {
  url: string;
  key: string;
  initialMessage: string;
}

/**
 * Project settings of the review workflow: whether direct writes need `bypass_reviews`, and the
 * pre-commit webhook. The webhook key is write-only: stored as given (it has to be sent), never shown.
 */
export class SettingsService {
  /** Stored settings as last read, until the store's settings mark moves (read on nearly every request). */
  private cache: { mark: string; values: Map<string, JsonObject | undefined> } | undefined;

  constructor(private readonly deps: { store: Store; clock: () => number }) {}

  private async stored(name: string, repos?: StoreRepos): Promise<JsonObject | undefined> {
    const { store } = this.deps;
    const mark = repos ? undefined : store.marks?.()?.settings;
    if (mark === undefined) return (repos ?? store).settings.get(name);
    if (this.cache?.mark !== mark) this.cache = { mark, values: new Map() };
    const { values } = this.cache;
    if (!values.has(name)) values.set(name, await store.settings.get(name));
    return values.get(name);
  }

  async reviews(repos?: StoreRepos): Promise<ReviewsSettings> {
    const stored = await this.stored(REVIEWS, repos);
    return { is_config_review_required: stored?.['is_config_review_required'] === true };
  }

  async updateReviews(body: unknown, actor: Actor): Promise<ReviewsSettings> {
    assertCallerUnlimited(actor, 'change settings');
    const parsed = parseWith(ReviewsSettingsSchema, body ?? {});
    if (!parsed.ok) throw new InputError('Invalid review settings.', parsed.errors);
    return this.deps.store.transaction(async (tx) => {
      // Updates merge into what they read: two at once on two replicas must not each keep only their own.
      await tx.lock?.(`settings:${REVIEWS}`);
      const before = await this.reviews(tx);
      // A write that changes nothing leaves no audit row (as for every other no-op write).
      if (before.is_config_review_required === parsed.value.is_config_review_required) return parsed.value;
      await tx.settings.set(REVIEWS, { ...parsed.value });
      await this.audit(tx, actor, REVIEWS, { before, after: parsed.value });
      return parsed.value;
    });
  }

  /** The webhook as stored (through `repos`, or as last read while the settings mark holds). */
  async webhookTarget(repos?: StoreRepos): Promise<WebhookTarget> {
    const stored = (await this.stored(WEBHOOK, repos)) ?? {};
    const text = (name: string): string => (typeof stored[name] === 'string' ? (stored[name] as string) : '');
    return { url: text('webhookURL'), key: text('webhookKey'), initialMessage: text('initialMessage') };
  }

  async webhook(): Promise<PrecommitWebhookSettings> {
    return view(await this.webhookTarget());
  }

  async updateWebhook(body: unknown, actor: Actor): Promise<PrecommitWebhookSettings> {
    assertCallerUnlimited(actor, 'change settings');
    const parsed = parseWith(PrecommitWebhookSettingsUpdateSchema, body ?? {});
    if (!parsed.ok) throw new InputError('Invalid pre-commit webhook settings.', parsed.errors);
    const update = parsed.value;
    return this.deps.store.transaction(async (tx) => {
      // Fields left out keep what this reads: a concurrent update on another replica must come first or after, whole.
      await tx.lock?.(`settings:${WEBHOOK}`);
      const before = await this.webhookTarget(tx);
      const url = update.webhookURL ?? before.url;
      // The key is the receiver's proof that a delivery comes from the console: it never follows a URL
      // set without it (whoever may set the URL would otherwise receive it), and turning off forgets it.
      if (url !== before.url && url !== '' && update.webhookKey === undefined) {
        throw new InputError('Invalid pre-commit webhook settings.', [{ property: 'webhookKey', errorMessage: 'is required when webhookURL changes: the stored key is never sent to a new URL' }]);
      }
      const after: WebhookTarget = {
        url,
        key: update.webhookKey ?? (url === before.url ? before.key : ''),
        initialMessage: update.initialMessage ?? before.initialMessage,
      };
      // A webhook without a key would let anyone who learns the URL pose as the console.
      if (after.url !== '' && after.key === '') {
        throw new InputError('Invalid pre-commit webhook settings.', [{ property: 'webhookKey', errorMessage: 'is required while webhookURL is set' }]);
      }
      if (after.url === before.url && after.key === before.key && after.initialMessage === before.initialMessage) return view(after);
      await tx.settings.set(WEBHOOK, { webhookURL: after.url, webhookKey: after.key, initialMessage: after.initialMessage });
      await this.audit(tx, actor, WEBHOOK, {
        before: view(before),
        after: view(after),
        webhookKeyChanged: after.key !== before.key,
      });
      return view(after);
    });
  }

  /**
   * The hook the entity service runs before a direct (non-review) write: with
   * is_config_review_required, writes to reviewable kinds need `bypass_reviews`.
   */
  async assertDirectWriteAllowed(kind: string, actor: Actor): Promise<void> {
    if (!REVIEWABLE_KINDS.includes(kind)) return;
    if (actor.permissions.has('bypass_reviews') || !(await this.reviews()).is_config_review_required) return;
    throw new NotAllowedError(
      `Reviews are required for ${kind.replace('_', ' ')}s: submit the change as a review (POST .../{id}/reviews), or use a key whose role holds bypass_reviews.`,
    );
  }

  private async audit(tx: StoreRepos, actor: Actor, name: string, details: JsonObject): Promise<void> {
    await tx.audit.append({
      time: this.deps.clock(),
      actorEmail: actor.userEmail,
      actorKeyId: actor.keyId,
      action: 'update',
      kind: 'settings',
      entityId: name,
      version: null,
      reviewId: null,
      details,
    });
  }
}

function view(target: WebhookTarget): PrecommitWebhookSettings {
  // A URL stored with credentials (refused now, possible in older databases) is never shown whole.
  return { webhookURL: withoutUrlCredentials(target.url), hasWebhookKey: target.key !== '', initialMessage: target.initialMessage, enabled: target.url !== '' };
}
