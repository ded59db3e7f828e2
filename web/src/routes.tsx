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
    return path.endsWith('/edit') && view.editable ? <EditEntityPage key={id} view={view} id={id} /> : <EntityDetailPage key={`${view.folder}/${id}`} view={view} id={id} />;
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
