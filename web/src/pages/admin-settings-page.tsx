import { useState } from 'preact/hooks';
import { PrecommitWebhookSettingsUpdateSchema, type PrecommitWebhookSettings, type PrecommitWebhookSettingsUpdate, type ReviewsSettings } from '../../../schemas/settings.js';
import { ApiError, zodProblems } from '../api.js';
import { AdminNav } from '../components/admin-nav.js';
import { ErrorBox } from '../components/error-box.js';
import { SaveFooter } from '../components/save-footer.js';
import { useSession } from '../session-context.js';
import { useAsync } from '../use-async.js';

function ReviewSettingsForm() {
  const { api } = useSession();
  const current = useAsync((signal) => api.get<ReviewsSettings>('settings/reviews', { signal }).then((r) => r.data), [api]);
  return (
    <section class="card" aria-labelledby="review-settings-heading">
      <h2 id="review-settings-heading">Review settings</h2>
      <ErrorBox error={current.error} />
      {current.data && <ReviewSettingsFields initial={current.data} />}
    </section>
  );
}

function ReviewSettingsFields({ initial }: { initial: ReviewsSettings }) {
  const { api } = useSession();
  const [required, setRequired] = useState(initial.is_config_review_required);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState('');
  const save = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(undefined);
    setNotice('');
    try {
      const r = await api.request<ReviewsSettings>('POST', 'settings/reviews', { is_config_review_required: required });
      setNotice(r.message);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <form onSubmit={save}>
      <div class="field">
        <label class="checkbox">
          <input type="checkbox" checked={required} onChange={(e) => setRequired((e.currentTarget as HTMLInputElement).checked)} /> Require reviews for changes to gates, dynamic configs, segments and
          experiments
        </label>
      </div>
      <SaveFooter label="Save review settings" notice={notice} error={error} />
    </form>
  );
}

function WebhookForm() {
  const { api } = useSession();
  const current = useAsync((signal) => api.get<PrecommitWebhookSettings>('settings/precommit_webhook', { signal }).then((r) => r.data), [api]);
  return (
    <section class="card" aria-labelledby="webhook-heading">
      <h2 id="webhook-heading">Pre-commit webhook</h2>
      <p class="muted">Approved changes of gates, dynamic configs, segments and experiments are sent here before they commit; the receiver answers through the change-validation endpoint.</p>
      <ErrorBox error={current.error} />
      {current.data && <WebhookFields initial={current.data} />}
    </section>
  );
}

function WebhookFields({ initial }: { initial: PrecommitWebhookSettings }) {
  const { api } = useSession();
  const [url, setUrl] = useState(initial.webhookURL);
  const [key, setKey] = useState('');
  const [hasKey, setHasKey] = useState(initial.hasWebhookKey);
  const [message, setMessage] = useState(initial.initialMessage);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState('');
  const save = async (event: Event): Promise<void> => {
    event.preventDefault();
    setError(undefined);
    setNotice('');
    // The key is write-only: left empty, the stored key is kept.
    const body: PrecommitWebhookSettingsUpdate = { webhookURL: url.trim(), initialMessage: message, ...(key ? { webhookKey: key } : {}) };
    const checked = PrecommitWebhookSettingsUpdateSchema.safeParse(body);
    if (!checked.success) {
      setError(new ApiError(0, 'The settings are not valid.', zodProblems(checked.error)));
      return;
    }
    try {
      const r = await api.request<PrecommitWebhookSettings>('POST', 'settings/precommit_webhook', body);
      setNotice(r.message);
      setKey('');
      setHasKey(r.data.hasWebhookKey);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <form onSubmit={save}>
      <div class="field">
        <label for="webhook-url">Webhook URL</label>
        <input id="webhook-url" type="url" value={url} placeholder="empty turns the webhook off" onInput={(e) => setUrl((e.currentTarget as HTMLInputElement).value)} />
      </div>
      <div class="field">
        <label for="webhook-key">Webhook key</label>
        <input id="webhook-key" type="password" autocomplete="new-password" value={key} aria-describedby="webhook-key-hint" onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)} />
        <p id="webhook-key-hint" class="muted small">
          {hasKey ? 'A key is set; it is never shown. Leave empty to keep it while the URL stays; a new URL needs the key again.' : 'No key is set.'} Sent as the x-service-webhook-key header.
        </p>
      </div>
      <div class="field">
        <label for="webhook-message">Initial message</label>
        <textarea id="webhook-message" rows={2} value={message} aria-describedby="webhook-message-hint" onInput={(e) => setMessage((e.currentTarget as HTMLTextAreaElement).value)} />
        <p id="webhook-message-hint" class="muted small">
          Shown to everyone while a change waits for validation.
        </p>
      </div>
      <SaveFooter label="Save webhook settings" notice={notice} error={error} />
    </form>
  );
}

export function AdminSettingsPage() {
  const { can } = useSession();
  return (
    <>
      <h1>Admin</h1>
      <AdminNav current="/admin" />
      {can('manage_settings') ? (
        <>
          <ReviewSettingsForm />
          <WebhookForm />
        </>
      ) : (
        <p>Your key may not manage settings.</p>
      )}
    </>
  );
}
