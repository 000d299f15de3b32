import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyRequest, RequestPayload } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { Errors } from '../errors/codes.ts';
import { jsonNestingExceeds } from './json-bounds.ts';

export interface BodyLimits {
  /** Largest body of any kind but an upload (JSON, and what no route takes). */
  bodyBytes: number;
  /** Largest multipart upload body, all parts together (each file has its own, smaller limit: 4100). */
  uploadBodyBytes: number;
  /** Deepest nesting of a JSON body. */
  jsonDepth: number;
}

/**
 * What every route's body passes before it is parsed:
 * - a body over its limit answers 413 (4130) in the family's body: at once when Content-Length
 *   says so (nothing is read; see unread-body.ts for how the connection ends); a chunked one as
 *   soon as the bytes read pass the limit, so a large body is never held in memory;
 * - a JSON body nested deeper than `jsonDepth` answers 400 before it is parsed; then Fastify's own
 *   parser (secure-json-parse, which refuses `__proto__` and `constructor.prototype` keys).
 * Multipart uploads are read by the upload routes as a stream (uploads/receive.ts): only their
 * declared length is checked here.
 */
export function applyBodyLimits(app: FastifyInstance, limits: BodyLimits): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const upload = isMultipart(request);
    const limit = upload ? limits.uploadBodyBytes : limits.bodyBytes;
    const declared = Number(request.headers['content-length']);
    if (declared > limit) return done(bodyTooLarge(limit, `Content-Length is ${declared}`));
    // Node's HTTP parser reads no more of a body than its Content-Length says: only a body sent
    // without one (chunked) needs counting as it arrives.
    const bounded = request.headers['content-length'] !== undefined && Number.isSafeInteger(declared);
    done(null, upload || bounded ? payload : capped(payload, limit));
  });
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (jsonNestingExceeds(body as string, limits.jsonDepth)) {
      return done(new AppError(Errors.BadRequest, { detail: `the JSON body is nested deeper than ${limits.jsonDepth} levels (arrays and objects)` }), undefined);
    }
    parseJson(request, body as string, done);
  });
}

/**
 * The bound of a whole upload body: twice the largest file limit (the spec's 10 MiB for videos and
 * A6 files, or the configured image limit if larger) plus 1 MiB for the form, so that a file
 * somewhat over its own limit is told by its code (4100), and a body far past any file answers 413.
 */
export function uploadBodyLimit(maxImageBytes: number): number {
  return 2 * Math.max(maxImageBytes, 10 * 1024 * 1024) + 1024 * 1024;
}

function isMultipart(request: FastifyRequest): boolean {
  return String(request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/');
}

function bodyTooLarge(limit: number, what: string): AppError {
  return new AppError(Errors.BodyTooLarge, { detail: `${what}; a body may have at most ${limit} bytes` });
}

/** The body as it arrives, failing with 4130 once more than `limit` bytes have come. */
function capped(payload: RequestPayload, limit: number): RequestPayload {
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      received += chunk.length;
      if (received > limit) return callback(bodyTooLarge(limit, `the body passed ${limit} bytes`));
      callback(null, chunk);
    },
  });
  payload.on('error', (error: Error) => counter.destroy(error));
  return payload.pipe(counter);
}
