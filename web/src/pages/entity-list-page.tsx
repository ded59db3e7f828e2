import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api, Json } from '../api.js';
import { ErrorBox } from '../components/error-box.js';
import { Link } from '../components/link.js';
import { pageFrom, Pager } from '../components/pager.js';
import { showTime } from '../format.js';
import { entityKey, MANAGED_TAG, type KindView } from '../kinds.js';
import { navigate } from '../router.js';
import { useSession } from '../session-context.js';
import { useAsync } from '../use-async.js';

export const PAGE_SIZE = 50;

interface ListPage {
  items: Json[];
  total: number;
  /** The page these items are: the pager shows it, not the one being loaded, so label and rows agree. */
  page: number;
}

/**
 * The API filters by tag and pages; it has no text search, so a search reads every page of the
 * (tag-filtered) list and matches id, name and description here.
 */
async function loadList(api: Api, view: KindView, search: string, tag: string, page: number, signal: AbortSignal): Promise<ListPage> {
  const tags = tag || undefined;
  if (!search) {
    const r = await api.get<Json[]>(view.listPath, { query: { page, limit: PAGE_SIZE, tags }, signal });
    return { items: r.data, total: r.pagination?.totalItems ?? r.data.length, page };
  }
  const needle = search.toLowerCase();
  const found: Json[] = [];
  for (let p = 1; ; p++) {
    const r = await api.get<Json[]>(view.listPath, { query: { page: p, limit: 1000, tags }, signal });
    for (const e of r.data) {
      const text = `${entityKey(view, e)}\n${String(e['name'] ?? '')}\n${String(e['description'] ?? '')}`.toLowerCase();
      if (text.includes(needle)) found.push(e);
    }
    if (!r.pagination?.nextPage || r.data.length === 0) break;
  }
  return { items: found.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE), total: found.length, page };
}

function statusOf(e: Json): string {
  if (typeof e['status'] === 'string') return e['status'];
  if (typeof e['isEnabled'] === 'boolean') return e['isEnabled'] ? 'Enabled' : 'Disabled';
  return '—';
}

/** One kind's entities: search, tag filter, pages. The filter lives in the URL so back/forward keep it. */
export function EntityListPage({ view, query }: { view: KindView; query: URLSearchParams }) {
  const { api } = useSession();
  const search = query.get('q') ?? '';
  const tag = query.get('tag') ?? '';
  const page = pageFrom(query);
  const [searchInput, setSearchInput] = useState(search);
  const [tagInput, setTagInput] = useState(tag);
  // The boxes show the filter of the URL when it changes under them (Back, the menu's link); only
  // then, so that what is typed before the first render's effects run is kept.
  const shown = useRef({ search, tag });
  useEffect(() => {
    if (shown.current.search === search && shown.current.tag === tag) return;
    shown.current = { search, tag };
    setSearchInput(search);
    setTagInput(tag);
  }, [search, tag]);
  const list = useAsync((signal) => loadList(api, view, search, tag, page, signal), [api, view.folder, search, tag, page]);

  const go = (next: { q?: string; tag?: string; page?: number }): void => {
    const params = new URLSearchParams();
    const q = next.q ?? search;
    const t = next.tag ?? tag;
    if (q) params.set('q', q);
    if (t) params.set('tag', t);
    if ((next.page ?? 1) > 1) params.set('page', String(next.page));
    const text = params.toString();
    navigate(`/entities/${view.folder}${text ? `?${text}` : ''}`);
  };

  return (
    <>
      <h1>{view.plural}</h1>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          go({ q: searchInput.trim(), tag: tagInput.trim(), page: 1 });
        }}
      >
        <div class="field">
          <label for="search">Search</label>
          <input id="search" type="search" value={searchInput} placeholder="id, name or description" onInput={(e) => setSearchInput((e.currentTarget as HTMLInputElement).value)} />
        </div>
        <div class="field">
          <label for="tag">Tag</label>
          <input id="tag" type="text" value={tagInput} placeholder={MANAGED_TAG} onInput={(e) => setTagInput((e.currentTarget as HTMLInputElement).value)} />
        </div>
        <button type="submit">Filter</button>
      </form>
      <ErrorBox error={list.error} />
      {list.data && (
        <>
          <div class="table-wrap" tabIndex={0} role="region" aria-label={`${view.plural} list`}>
            <table class="list" aria-busy={list.loading}>
              <thead>
                <tr>
                  <th scope="col">{view.entry.idField === 'name' ? 'Name' : 'ID'}</th>
                  {view.entry.idField === 'id' && <th scope="col">Name</th>}
                  <th scope="col">Status</th>
                  <th scope="col">Tags</th>
                  <th scope="col">Last modified</th>
                </tr>
              </thead>
              <tbody>
                {list.data.items.map((e) => {
                  const id = entityKey(view, e);
                  const tags = Array.isArray(e['tags']) ? (e['tags'] as string[]) : [];
                  return (
                    <tr key={id}>
                      <td>
                        <Link href={`/entities/${view.folder}/${encodeURIComponent(id)}`}>{id}</Link>
                      </td>
                      {view.entry.idField === 'id' && <td>{String(e['name'] ?? '')}</td>}
                      <td>{statusOf(e)}</td>
                      <td>
                        {tags.map((t) => (
                          <span key={t} class={t === MANAGED_TAG ? 'badge managed' : 'badge'}>
                            {t}
                          </span>
                        ))}
                      </td>
                      <td>{showTime(e['lastModifiedTime'])}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {list.data.total === 0 && <p class="muted">No {view.plural.toLowerCase()} {search || tag ? 'match the filter' : 'yet'}.</p>}
          <Pager page={list.data.page} pageSize={PAGE_SIZE} total={list.data.total} label={view.plural} onPage={(p) => go({ page: p })} />
        </>
      )}
      {!list.data && list.loading && <p aria-busy="true">Loading…</p>}
    </>
  );
}
