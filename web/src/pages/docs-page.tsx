import { useState } from 'preact/hooks';
import { ErrorBox } from '../components/error-box.js';
import { toYaml } from '../format.js';
import { useAsync } from '../use-async.js';

type Json = Record<string, unknown>;

interface Operation {
  method: string;
  path: string;
  op: Json;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Reads /openapi.json (public, no key needed) the way any client would. */
async function loadDocument(signal: AbortSignal): Promise<Json> {
  const response = await fetch('/openapi.json', { signal, headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`/openapi.json answered HTTP ${response.status}`);
  return (await response.json()) as Json;
}

function byTag(doc: Json): Map<string, Operation[]> {
  const groups = new Map<string, Operation[]>();
  for (const [path, item] of Object.entries((doc['paths'] ?? {}) as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const tag = (Array.isArray(op['tags']) ? String(op['tags'][0]) : '') || 'Other';
      const list = groups.get(tag) ?? [];
      list.push({ method: method.toUpperCase(), path, op });
      groups.set(tag, list);
    }
  }
  return groups;
}

const REF = '#/components/schemas/';

/** The schema with its component references written out, each component once (so recursive ones end in a $ref). */
function inlineRefs(schema: unknown, components: Record<string, unknown>, seen = new Set<string>()): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(s, components, seen));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as Json)['$ref'];
  if (typeof ref === 'string' && ref.startsWith(REF)) {
    const name = ref.slice(REF.length);
    if (seen.has(name) || !(name in components)) return schema;
    seen.add(name);
    return { title: name, ...(inlineRefs(components[name], components, seen) as Json) };
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlineRefs(v, components, seen)]));
}

function OperationView({ operation, components }: { operation: Operation; components: Record<string, unknown> }) {
  const { op } = operation;
  const params = (op['parameters'] ?? []) as Json[];
  const body = ((op['requestBody'] as Json | undefined)?.['content'] as Json | undefined)?.['application/json'] as Json | undefined;
  const responses = (op['responses'] ?? {}) as Record<string, Json>;
  const success = Object.entries(responses).find(([status]) => status.startsWith('2'));
  const successSchema = ((success?.[1]['content'] as Json | undefined)?.['application/json'] as Json | undefined)?.['schema'];
  return (
    <details class="operation">
      <summary>
        <span class={`method m-${operation.method.toLowerCase()}`}>{operation.method}</span> <code>{operation.path}</code> <span class="muted">{String(op['summary'] ?? '')}</span>
      </summary>
      {typeof op['x-permission'] === 'string' && (
        <p>
          Permission: <code>{op['x-permission']}</code>
        </p>
      )}
      {params.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={`Parameters of ${operation.method} ${operation.path}`}>
          <table>
            <caption>Parameters</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">In</th>
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {params.map((p) => (
                <tr key={`${String(p['in'])}:${String(p['name'])}`}>
                  <td>
                    <code>{String(p['name'])}</code>
                  </td>
                  <td>{String(p['in'])}</td>
                  <td>{String(p['description'] ?? '')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {body && (
        <>
          <h4>Request body</h4>
          <pre class="yaml">{toYaml(inlineRefs(body['schema'], components))}</pre>
        </>
      )}
      {success && (
        <>
          <h4>Response {success[0]}</h4>
          <pre class="yaml">{toYaml(inlineRefs(successSchema ?? {}, components))}</pre>
        </>
      )}
      <p class="muted small">Errors: {Object.keys(responses).filter((s) => !s.startsWith('2')).join(', ')}, in the error envelope.</p>
    </details>
  );
}

/** /docs: the OpenAPI document, browsable by tag; schemas referenced as #/components/schemas are listed below. */
export function DocsPage() {
  const doc = useAsync(loadDocument, []);
  const [filter, setFilter] = useState('');
  const groups = doc.data ? byTag(doc.data) : new Map<string, Operation[]>();
  const needle = filter.trim().toLowerCase();
  const schemas = (((doc.data?.['components'] as Json | undefined)?.['schemas'] ?? {}) as Record<string, unknown>);
  return (
    <main id="main" class="docs">
      <p class="crumbs">
        <a href="/">Console</a> / API docs
      </p>
      <h1>{String((doc.data?.['info'] as Json | undefined)?.['title'] ?? 'API documentation')}</h1>
      <p>
        {String((doc.data?.['info'] as Json | undefined)?.['description'] ?? '')} The raw document: <a href="/openapi.json">/openapi.json</a>.
      </p>
      <ErrorBox error={doc.error} />
      <div class="field">
        <label for="docs-filter">Filter operations</label>
        <input id="docs-filter" type="search" value={filter} onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)} />
      </div>
      {[...groups].map(([tag, ops]) => {
        const shown = ops.filter((o) => !needle || `${o.method} ${o.path} ${String(o.op['summary'] ?? '')}`.toLowerCase().includes(needle));
        if (shown.length === 0) return null;
        return (
          <section key={tag} aria-labelledby={`tag-${tag}`}>
            <h2 id={`tag-${tag}`}>{tag}</h2>
            {shown.map((o) => (
              <OperationView key={`${o.method} ${o.path}`} operation={o} components={schemas} />
            ))}
          </section>
        );
      })}
      {Object.keys(schemas).length > 0 && (
        <section aria-labelledby="schemas-heading">
          <h2 id="schemas-heading">Schemas</h2>
          {Object.entries(schemas).map(([name, schema]) => (
            <details key={name} id={`schema-${name}`} class="operation">
              <summary>
                <code>{name}</code>
              </summary>
              <pre class="yaml">{toYaml(schema)}</pre>
            </details>
          ))}
        </section>
      )}
    </main>
  );
}
