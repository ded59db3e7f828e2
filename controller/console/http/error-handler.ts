import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpStatusOf } from '../../error-table.js';
import { DomainError, InputError, RateLimitedError, UnavailableError } from '../../errors.js';
import { readRestOfRefusedBody } from './read-rest-of-refused-body.js';

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
    case 'FST_ERR_BAD_URL':
      return 'Malformed URL: a percent-encoded character is not valid.';
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return 'A path parameter of this URL is too long.';
    default:
      return error.message;
  }
}

/** The field a framework error is about, so that even these name what to fix. */
function frameworkFieldError(error: FastifyError): ErrorBody['errors'] {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return [{ property: '(body)', errorMessage: 'is larger than the accepted size' }];
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return [{ property: 'content-type', errorMessage: 'must be application/json' }];
    case 'FST_ERR_BAD_URL':
      return [{ property: '(url)', errorMessage: 'has a malformed percent-encoded character' }];
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return [{ property: '(url)', errorMessage: 'has a path parameter that is too long' }];
    default:
      return undefined;
  }
}

function frameworkBody(error: FastifyError, status: number): ErrorBody {
  const errors = frameworkFieldError(error);
  return { status, message: frameworkMessage(error), ...(errors ? { errors } : {}) };
}

/**
 * Fastify's router errors (bad percent-encoding, a too-long path parameter) bypass the error handler;
 * this option hook answers them in the API's envelope too.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  void reply.status(status).send(frameworkBody(error, status));
}

/**
 * Errors Node's HTTP parser raises before there is a request (headers too large, a malformed request
 * line, a timeout): written to the socket in the API's envelope, as Fastify's own handler would.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const message = status === 408 ? 'The request took too long to arrive.' : status === 431 ? 'The request headers (or URL) are too large.' : 'Malformed HTTP request.';
  const body = JSON.stringify({ status, message } satisfies ErrorBody);
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(error);
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
      body = frameworkBody(error, error.statusCode);
    } else {
      request.log.error({ err: error, method: request.method, url: request.url }, 'unhandled error');
      body = { status: 500, message: 'Internal Server Error' };
    }
    if (error instanceof UnavailableError) {
      // Passing (a restart, a failover, a shutdown): the message names it; the error object of a
      // database driver is never logged, it may reference its connection's settings and statements.
      request.log.warn({ reason: error.message }, 'unavailable');
      void reply.header('retry-after', '1');
    } else if (body.status >= 500 && error instanceof DomainError) {
      request.log.error({ err: error }, 'upstream failure');
    }
    if (error instanceof RateLimitedError && error.retryAfterSeconds !== undefined) void reply.header('retry-after', String(error.retryAfterSeconds));
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') readRestOfRefusedBody(request, reply);
    void reply.status(body.status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send({ status: 404, message: `Route ${request.method} ${request.url.split('?')[0] ?? ''} not found.` });
  });
}
