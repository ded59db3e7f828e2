/** The page a URL asks for: a whole number from 1, else the first page (the API refuses `2.5`). */
export function pageFrom(query: URLSearchParams): number {
  const page = Number(query.get('page') ?? '1');
  return Number.isSafeInteger(page) && page >= 1 ? page : 1;
}

/** Previous / next page buttons with where the list stands. */
export function Pager({ page, pageSize, total, onPage, label }: { page: number; pageSize: number; total: number; onPage: (page: number) => void; label: string }) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  // A page past the end (an old link, or the last item of the last page deleted) says so, and
  // Previous leads back to the last page that has items.
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(Math.min(page - 1, pages))}>
        Previous
      </button>
      <span aria-live="polite">
        {page > pages ? `Page ${page} is past the last page, ${pages}` : `Page ${page} of ${pages}`} ({total} {total === 1 ? 'item' : 'items'})
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
