import { Link } from './components/link.js';
import { kindByFolder } from './kinds.js';
import { match, type Location } from './router.js';
import { AdminKeysPage } from './pages/admin-keys-page.js';
import { AdminRolesPage } from './pages/admin-roles-page.js';
import { AdminSettingsPage } from './pages/admin-settings-page.js';
import { AuditPage } from './pages/audit-page.js';
import { EditEntityPage } from './pages/edit-entity-page.js';
import { EntityDetailPage } from './pages/entity-detail-page.js';
import { EntityListPage } from './pages/entity-list-page.js';
import { HomePage } from './pages/home-page.js';
import { ReviewPage } from './pages/review-page.js';
import { ReviewsInboxPage } from './pages/reviews-inbox-page.js';
import { useSession } from './session-context.js';

function NotFound({ path }: { path: string }) {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        Nothing lives at <code>{path}</code>.
      </p>
    </>
  );
}

/** The page for the current path. Every page here has its server route in web-routes.ts. */
export function Routes({ location }: { location: Location }) {
  const { can } = useSession();
  const { path, query } = location;
  if (path === '/') return <HomePage />;
  let params = match('/entities/:folder', path);
  if (params) {
    const view = kindByFolder(params['folder']!);
    return view ? <EntityListPage key={view.folder} view={view} query={query} /> : <NotFound path={path} />;
  }
  params = match('/entities/:folder/:id', path) ?? match('/entities/:folder/:id/edit', path);
  if (params) {
    const view = kindByFolder(params['folder']!);
    if (!view) return <NotFound path={path} />;
    const id = params['id']!;
    if (!path.endsWith('/edit')) return <EntityDetailPage key={`${view.folder}/${id}`} view={view} id={id} />;
    // Only kinds changed through reviews have an edit page, and only for a key that may submit one.
    if (!view.editable) return <NotFound path={path} />;
    if (!can('submit_reviews')) {
      return (
        <>
          <h1>Edit {id}</h1>
          <p>
            This key cannot submit reviews (its role lacks <code>submit_reviews</code>), so it cannot propose changes.{' '}
            <Link href={`/entities/${view.folder}/${encodeURIComponent(id)}`}>Back to {id}</Link>
          </p>
        </>
      );
    }
    return <EditEntityPage key={id} view={view} id={id} />;
  }
  if (path === '/reviews') return <ReviewsInboxPage />;
  params = match('/reviews/:reviewID', path);
  if (params) return <ReviewPage key={params['reviewID']} reviewId={params['reviewID']!} />;
  if (path === '/audit') return <AuditPage query={query} />;
  if (path === '/admin') return <AdminSettingsPage />;
  if (path === '/admin/keys') return <AdminKeysPage />;
  if (path === '/admin/roles') return <AdminRolesPage />;
  return <NotFound path={path} />;
}
