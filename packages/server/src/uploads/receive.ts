import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../errors/app-error.ts';
import { claimedKinds, type AcceptedFormat } from './formats.ts';
import { fileTooLarge, largestAllowed, type UploadPolicy } from './policy.ts';
import { UploadGuard } from './upload-guard.ts';
import { Errors } from '../errors/codes.ts';

/** The form field that carries the file (A4 to A6). */
export const UPLOAD_FIELD = 'upload';

/** A file received whole into a temporary file; the caller removes it (`discardUpload`). */
export interface ReceivedUpload {
  path: string;
  format: AcceptedFormat;
  bytes: number;
}

/** Where uploads are written while they arrive: `<dataDir>/tmp/uploads`. */
export function uploadTempDir(dataDir: string): string {
  return join(dataDir, 'tmp', 'uploads');
}

/**
 * Reads the multipart body of an upload request: exactly one file, in the field `upload`, streamed
 * through the UploadGuard into a temporary file. Other text fields are ignored. Refusals: not
 * multipart, no file, a file in another field, a second file, an empty file or a malformed body 400;
 * a format that is not accepted or over the byte limit as the policy refuses them (4101 and 4100 where
 * videos are taken). Nothing is left on disk when it fails.
 */
export async function receiveUpload(request: FastifyRequest, policy: UploadPolicy, tempDir: string): Promise<ReceivedUpload> {
  if (!request.isMultipart()) throw new AppError(Errors.BadRequest, { detail: 'expected multipart/form-data' });
  await mkdir(tempDir, { recursive: true, mode: 0o700 });
  let received: ReceivedUpload | undefined;
  let pendingPath: string | undefined;
  try {
    for await (const part of request.parts({ limits: multipartLimits(policy) })) {
      if (part.type !== 'file') continue;
      if (part.fieldname !== UPLOAD_FIELD || received) {
        part.file.resume();
        throw new AppError(Errors.BadRequest, { detail: received ? 'send exactly one file' : `the file goes in the field "${UPLOAD_FIELD}"` });
      }
      pendingPath = join(tempDir, `${randomUUID()}.upload`);
      const guard = new UploadGuard(policy, claimedKinds(part.filename, part.mimetype));
      // Opened before the pipeline starts: a write stream opening the file itself could create it
      // after a refusal on the first bytes had already removed it, leaving a stray temporary file.
      const file = await open(pendingPath, 'wx', 0o600);
      await pipeline(part.file, guard, file.createWriteStream());
      received = { path: pendingPath, format: guard.format!, bytes: guard.bytes };
    }
  } catch (error) {
    if (pendingPath) await rm(pendingPath, { force: true });
    throw asUploadError(error, policy);
  }
  if (!received) throw new AppError(Errors.BadRequest, { detail: `no file in the field "${UPLOAD_FIELD}"` });
  return received;
}

/**
 * Parser limits around the guard's own: the guard cuts a file off at its format's limit;
 * the parser's file size limit sits one byte above the largest so the guard always speaks first.
 * A third file, many fields or long field values are refused by the parser (400).
 */
function multipartLimits(policy: UploadPolicy) {
  return { fileSize: largestAllowed(policy) + 1, files: 2, fields: 20, fieldSize: 64 * 1024, parts: 25, headerPairs: 100 };
}

/** Removes the temporary file of an upload (whatever became of it). */
export async function discardUpload(upload: ReceivedUpload): Promise<void> {
  await rm(upload.path, { force: true });
}

/**
 * Removes temporary files older than `olderThanMs`: left by a process that stopped mid-upload.
 * Younger ones may belong to an upload in progress in another process.
 */
export async function removeStaleUploads(tempDir: string, olderThanMs: number, nowMs = Date.now()): Promise<void> {
  let names: string[];
  try {
    names = await readdir(tempDir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(tempDir, name);
    const stats = await stat(path).catch(() => undefined);
    if (stats && nowMs - stats.mtimeMs > olderThanMs) await rm(path, { force: true });
  }
}

/** Multipart parser errors (limits, malformed or cut bodies) are the client's: 400, or the policy's refusal of a file too large. */
function asUploadError(error: unknown, policy: UploadPolicy): unknown {
  if (isAppError(error)) return error;
  const code = (error as { code?: string })?.code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return fileTooLarge(policy);
  if (typeof code === 'string' && (code.startsWith('FST_') || code === 'ERR_STREAM_PREMATURE_CLOSE')) {
    return new AppError(Errors.BadRequest, { detail: (error as Error).message, cause: error });
  }
  const message = (error as Error)?.message ?? '';
  if (/multipart|boundary|Part terminated|Unexpected end of form/i.test(message)) return new AppError(Errors.BadRequest, { detail: message, cause: error });
  return error;
}
