import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { HttpRequestError, ResponseBodyTooLargeError, RpcRequestError, TimeoutError } from 'viem';

/** The largest answer read from a node (viem's own limit). */
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

type Body = { id: number; method: string; params?: unknown } | Array<{ id: number; method: string; params?: unknown }>;

interface RpcError {
  error: { code: number; message: string; data?: unknown };
}

/**
 * A JSON-RPC client over node:http with connections kept open, for a chain's node: the part of
 * viem's HTTP client (getHttpRpcClient) the service uses, with the same answers and the same errors
 * (RpcRequestError for a JSON-RPC error on a failed status, HttpRequestError for any other failure
 * or a node that cannot be reached, TimeoutError), so viem's retries and isNodeUnreachable read them
 * alike. It costs a third of the CPU of a call through fetch (0.15 against 0.49 ms an eth_chainId
 * on anvil), and a call's wait less than half (0.21 against 0.47 ms): an A7 makes two such calls
 * on its way and the outbox hundreds a second. Credentials in the URL are sent as Basic auth, as
 * viem does.
 */
export function rpcHttpClient(url: string, options: { timeout: number }) {
  const parsed = new URL(url);
  const secure = parsed.protocol === 'https:';
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (parsed.username) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`).toString('base64')}`;
    parsed.username = '';
    parsed.password = '';
  }
  const target = parsed.toString();
  // Idle connections do not hold the process open (the agent unrefs them).
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;

  const post = (text: string, payload: object) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
      // Why this client ended the request (timeout, size), which wins over the socket error it causes.
      let reason: Error | undefined;
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(reason ?? error);
      };
      const request = send(target, { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(text) } }, (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            reason ??= new ResponseBodyTooLargeError({ maxSize: MAX_RESPONSE_BYTES, size });
            request.destroy(reason);
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') });
        });
        response.on('error', fail);
      });
      const timer = setTimeout(() => {
        reason ??= new TimeoutError({ body: payload as Record<string, unknown>, url: target });
        request.destroy(reason);
      }, options.timeout);
      request.on('error', fail);
      request.end(text);
    });

  return {
    async request({ body }: { body: Body }): Promise<unknown> {
      const payload = Array.isArray(body) ? body.map((call) => ({ jsonrpc: '2.0', ...call })) : { jsonrpc: '2.0', ...body };
      const text = JSON.stringify(payload);
      let answer: { status: number; headers: IncomingHttpHeaders; text: string };
      try {
        answer = await post(text, payload);
      } catch (error) {
        if (error instanceof TimeoutError || error instanceof ResponseBodyTooLargeError) throw error;
        throw new HttpRequestError({ body: payload as Record<string, unknown>, cause: error as Error, url: target });
      }
      const ok = answer.status >= 200 && answer.status < 300;
      let data: unknown;
      try {
        data = JSON.parse(answer.text || '{}');
      } catch (error) {
        if (ok) throw new HttpRequestError({ body: payload as Record<string, unknown>, cause: error as Error, details: 'the node answered something other than JSON', url: target });
        data = { error: answer.text };
      }
      // A node that refuses a whole batch answers one error, bare or in a one-element array (geth).
      const single = Array.isArray(body) && Array.isArray(data) && data.length === 1 ? data[0] : data;
      if (!ok) {
        const headers = responseHeaders(answer.headers);
        if (isRpcError(single)) throw new RpcRequestError({ body: payload as Record<string, unknown>, error: single.error, headers, status: answer.status, url: target });
        throw new HttpRequestError({ body: payload as Record<string, unknown>, details: JSON.stringify((data as { error?: unknown }).error) || `status ${answer.status}`, headers, status: answer.status, url: target });
      }
      if (!Array.isArray(body) || body.length === 0) return data;
      if (Array.isArray(data) && data.length >= body.length) return data;
      if (!isRpcError(single)) throw new HttpRequestError({ body: payload as Record<string, unknown>, details: `expected ${body.length} answers to the batch`, url: target });
      return body.map(() => single);
    },
  };
}

function isRpcError(data: unknown): data is RpcError {
  const error = (data as Partial<RpcError> | undefined)?.error;
  return typeof error?.code === 'number' && typeof error.message === 'string';
}

function responseHeaders(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}
