import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import type { FileStorage } from '../storage/index.ts';
import type { ByteRange } from '../storage/index.ts';
import type { UploadedFileRow } from '../store/schema.ts';
import { Errors } from '../errors/codes.ts';

/** `<uuid>.<ext>` of a stored upload; anything else is not a file of ours (404 without a lookup). */
export const STORED_NAME = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(jpg|png|gif|webp|mp4)$/;

/**
 * Streams a stored upload with the content type recorded at upload (sniffed, never the client's),
 * `nosniff` and a sandboxing CSP so a browser treats it as media only. A single `Range: bytes=` is
 * answered with 206 (video players need it); other or unsatisfiable ranges get the whole file.
 */
export async function sendStoredFile(
  deps: { files: FileStorage },
  request: FastifyRequest,
  reply: FastifyReply,
  file: UploadedFileRow,
  cacheControl: string,
): Promise<FastifyReply> {
  const size = Number(file.size_bytes);
  const range = parseRange(request.headers.range, size);
  const object = await deps.files.get(file.storage_key, range);
  if (!object) throw new AppError(Errors.NotFound);
  reply
    .header('content-type', file.content_type)
    .header('content-length', String(object.contentLength))
    .header('accept-ranges', 'bytes')
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'; sandbox")
    .header('cache-control', cacheControl);
  if (range) reply.status(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
  return reply.send(object.body);
}

/** One satisfiable `bytes=start-end`, `bytes=start-` or `bytes=-suffix` range, else undefined. */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || size === 0) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    return suffix > 0 ? { start: Math.max(0, size - suffix), end: size - 1 } : undefined;
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return start <= end && start < size ? { start, end } : undefined;
}
