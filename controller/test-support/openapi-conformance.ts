/**
 * Checks responses against the console's own /openapi.json: a status the document does not list for
 * the route, or a body that does not match the schema it gives, is a violation. Used by every test
 * console (createTestConsole), so each route test is also a conformance test.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';

/** One response as the client got it. */
export interface RecordedResponse {
  method: string;
  /** Route pattern as Fastify matched it (`/console/v1/gates/:id`); undefined when no route matched. */
  route: string | undefined;
  url: string;
  status: number;
  contentType: string | undefined;
  body: string;
}

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type Paths = Record<string, Record<string, Operation>>;

/** Validators compiled from one document, shared by every console built from the same code. */
export class OpenApiConformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly paths: Paths;

  constructor(document: Record<string, unknown>) {
    this.paths = (document['paths'] ?? {}) as Paths;
    this.ajv.addSchema({ ...document, $id: 'openapi' });
  }

  /** Why the response breaks the document, or undefined when it conforms (or is not the API's). */
  violation(response: RecordedResponse): string | undefined {
    const { route } = response;
    // No route matched (an unknown path): no document can describe it. Routes outside /console/v1
    // (health probes, the document itself) are not part of the API the document describes.
    if (route === undefined || !route.startsWith('/console/v1')) return undefined;
    const path = route.replace(/:([A-Za-z]+)/g, '{$1}');
    const method = response.method.toLowerCase();
    const where = `${response.method} ${response.url} → ${response.status}`;
    const operation = this.paths[path]?.[method];
    if (operation === undefined) return `${where}: ${response.method} ${path} is not in /openapi.json`;
    const documented = operation.responses?.[String(response.status)];
    if (documented === undefined) return `${where}: status ${response.status} is not documented (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`;
    const media = Object.keys(documented.content ?? {});
    if (media.length === 0) return response.body === '' ? undefined : `${where}: the document gives no body, the server sent one`;
    if (!(response.contentType ?? '').startsWith('application/json')) return `${where}: content type ${response.contentType ?? '(none)'}, documented ${media.join(', ')}`;
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return `${where}: the body is not JSON`;
    }
    const validate = this.validator(path, method, response.status);
    if (validate(body)) return undefined;
    const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` '${String(e.params['additionalProperty'])}'` : ''}`);
    return `${where}: body does not match the documented schema: ${errors.join('; ')}`;
  }

  private validator(path: string, method: string, status: number): ValidateFunction {
    const pointer = ['paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema'].map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
    let validate = this.validators.get(pointer);
    if (validate === undefined) this.validators.set(pointer, (validate = this.ajv.compile({ $ref: `openapi#/${pointer}` })));
    return validate;
  }
}

let shared: Promise<OpenApiConformance> | undefined;

/**
 * The checker for the test consoles' document. Every test console is built by createConsole with the
 * same routes and public URL, so their documents are one document: it is generated and compiled once
 * per test worker (generating it takes ~100 ms, a test console's whole life often less).
 */
export function conformanceOf(app: FastifyInstance): Promise<OpenApiConformance> {
  shared ??= app
    .inject({ method: 'GET', url: '/openapi.json' })
    .then((res) => {
      if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
      return new OpenApiConformance(res.json());
    })
    .catch((error: unknown) => {
      // An app that was closed or is closing can't answer: the next console tries again.
      shared = undefined;
      throw error;
    });
  return shared;
}

/**
 * Records every response of the app (add before the app is ready). `violations()` checks them all
 * against the app's own document.
 */
export function recordResponses(app: FastifyInstance): { responses: RecordedResponse[]; violations(exempt?: readonly string[]): Promise<string[]> } {
  const responses: RecordedResponse[] = [];
  app.addHook('onSend', (request, reply, payload, done) => {
    const header = reply.getHeader('content-type');
    responses.push({
      method: request.method,
      route: request.routeOptions.url,
      url: request.url,
      status: reply.statusCode,
      contentType: typeof header === 'string' ? header : undefined,
      body: typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '',
    });
    done(null, payload);
  });
  return {
    responses,
    async violations(exempt = []) {
      const checked = responses.filter((r) => r.route === undefined || !exempt.includes(r.route));
      if (checked.length === 0) return [];
      const conformance = await conformanceOf(app);
      return [...new Set(checked.map((r) => conformance.violation(r)).filter((v): v is string => v !== undefined))];
    },
  };
}
