import { isAscii } from 'node:buffer';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** Aborting ends the request; `send` then rejects with an AbortError. */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  text: string;
}

/**
 * UTF-8 text of a body. Pure ASCII (nearly every JSON answer) is copied byte for byte instead: the
 * same string, without the UTF-8 decoder's cost, which on a plan's console pages (13 MB at 10,000
 * entities) was 40–60 ms.
 */
export function decodeBody(body: Buffer): string {
  return isAscii(body) ? body.toString('latin1') : body.toString('utf8');
}

/** Sends one request and reads the whole answer. Redirects are answers, never followed. */
export type SendHttp = (request: HttpRequest) => Promise<HttpResponse>;

/**
 * Outgoing HTTP over node:http(s) with connections kept alive between requests. fetch (undici) cost
 * about 0.8 ms of CPU per request here, as much as the console spends serving one (bench:reviews,
 * bench:apply): the console client, the bridge and webhook deliveries all send through this.
 * Idle connections do not keep the process alive; `close()` drops them.
 */
export function createHttpClient(): { send: SendHttp; close: () => void } {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  const send: SendHttp = ({ method, url, headers, body, signal }) =>
    new Promise<HttpResponse>((resolve, reject) => {
      const secure = url.protocol === 'https:';
      const payload = body === undefined ? undefined : Buffer.from(body, 'utf8');
      const request = (secure ? httpsRequest : httpRequest)(url, {
        method,
        agent: secure ? agents.https : agents.http,
        headers: payload === undefined ? headers : { ...headers, 'content-length': String(payload.length) },
        signal,
      });
      request.once('response', (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('end', () => resolve({ status: response.statusCode ?? 0, text: decodeBody(Buffer.concat(chunks)) }));
        response.once('error', reject);
      });
      request.once('error', reject);
      request.end(payload);
    });
  return {
    send,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** The process's shared client: one pool of kept-alive connections for every caller. */
export const sharedHttpClient = createHttpClient();
