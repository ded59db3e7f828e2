import type { FastifyError, FastifyInstance } from 'fastify';
import { httpStatusOf } from '../../error-table.js';
import { DomainError, InputError, RateLimitedError } from '../../errors.js';

export interface ErrorBody {
  status: number;
  message: string;
  errors?: { property: string; errorMessage: string }[];
}

/** Fastify's own errors that describe the client's mistake, with the message we show for each. */
function frameworkMessage(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return `Malformed JSON body: ${error.message}`;
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large.';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type: send application/json.';
    default:
      return error.message;
  }
}

/** The only place errors become HTTP responses. 5xx bodies never carry internals. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    let body: ErrorBody;
    if (error instanceof DomainError) {
      body = { status: httpStatusOf(error), message: error.message };
      if (error instanceof InputError && error.errors.length > 0) body.errors = error.errors;
    } else if ((error instanceof SyntaxError && error.statusCode === 400) || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
      // Only the body parser's SyntaxError (it sets statusCode 400): one thrown by our own code is a bug, a 500.
      body = { status: 400, message: `Malformed JSON body: ${error.message}`, errors: [{ property: '(body)', errorMessage: 'is not valid JSON' }] };
    } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      body = { status: error.statusCode, message: frameworkMessage(error) };
    } else {
      request.log.error({ err: error, method: request.method, url: request.url }, 'unhandled error');
      body = { status: 500, message: 'Internal Server Error' };
    }
    if (body.status >= 500 && error instanceof DomainError) request.log.error({ err: error }, 'upstream failure');
    if (error instanceof RateLimitedError && error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
    void reply.status(body.status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ status: 404, message: `Route ${request.method} ${request.url.split('?')[0] ?? ''} not found.` });
  });
}
