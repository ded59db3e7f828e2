import type { z } from 'zod';
import type { Permission } from '../permissions.js';

export interface QueryParam {
  name: string;
  description: string;
  type: 'string' | 'integer' | 'boolean';
}

/** What a route declares about itself; the OpenAPI document is built from these entries. */
export interface RouteDoc {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Fastify path, e.g. /console/v1/gates/:id */
  url: string;
  summary: string;
  tag: string;
  permission: Permission;
  body?: z.ZodType;
  bodyOptional?: boolean;
  /** The query parameters the route takes; any other is a 400 naming it. */
  query?: QueryParam[];
  /**
   * Parameters a client may expect here although the route doesn't take them (`dryRun` on a kind
   * without a dry run in the query), with the error message that says what to do instead.
   */
  refusedQuery?: Readonly<Record<string, string>>;
  /**
   * Level of the body's root as the depth limit (MAX_JSON_DEPTH) counts it: 1, the default, for a
   * body that is an entity; 0 for one that wraps an entity (a review's `change`), which may then
   * nest as deep as the entity itself.
   */
  bodyRootLevel?: number;
  /** Schema of `data` in the success envelope; absent for a delete. */
  response?: z.ZodType;
  list?: boolean;
  successStatus?: number;
  /**
   * Other success statuses the route answers with: the same envelope (a create's dry run: 200), or
   * with `response`, one whose `data` has that schema (a write submitted as a review: 202).
   */
  otherSuccess?: { status: number; description: string; response?: z.ZodType }[];
  headers?: { name: string; description: string }[];
}

export class RouteCatalog {
  readonly routes: RouteDoc[] = [];

  add(doc: RouteDoc): void {
    this.routes.push(doc);
  }
}
