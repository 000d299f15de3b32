import { Transform, type TransformCallback } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { AppError } from '../errors/app-error.ts';
import type { UploadKind } from '../store/schema.ts';
import { acceptedFormatOf, type AcceptedFormat } from './formats.ts';
import { fileTooLarge, unacceptedFile, type UploadPolicy } from './policy.ts';
import { Errors } from '../errors/codes.ts';

/** Bytes file-type needs to recognise every format of the allow-list. */
const SNIFF_BYTES = 4100;

/**
 * Passes an upload through while it streams: holds back the first bytes until their format is
 * known (sniffed with file-type against the allow-list, and not contradicting the kind the client
 * claimed: `unacceptedFile` otherwise, before anything else reads the file), then counts every byte and
 * fails with `fileTooLarge` the moment the format's limit is passed, so an oversized upload is cut off there and
 * never buffered. An empty file fails with 400.
 */
export class UploadGuard extends Transform {
  readonly #policy: UploadPolicy;
  readonly #claimedKinds: UploadKind[];
  #head: Buffer[] = [];
  #headBytes = 0;
  #bytes = 0;
  #format: AcceptedFormat | undefined;
  #limit = 0;

  constructor(policy: UploadPolicy, claimedKinds: UploadKind[] = []) {
    super();
    this.#policy = policy;
    this.#claimedKinds = claimedKinds;
  }

  /** The sniffed format, once known. */
  get format(): AcceptedFormat | undefined {
    return this.#format;
  }

  /** Bytes that went through so far. */
  get bytes(): number {
    return this.#bytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#bytes += chunk.length;
    if (this.#format) {
      if (this.#bytes > this.#limit) return callback(fileTooLarge(this.#policy));
      return callback(null, chunk);
    }
    this.#head.push(chunk);
    this.#headBytes += chunk.length;
    if (this.#headBytes < SNIFF_BYTES) return callback();
    this.#releaseHead().then(() => callback(), callback);
  }

  override _flush(callback: TransformCallback): void {
    if (this.#bytes === 0) return callback(new AppError(Errors.BadRequest, { detail: 'the uploaded file is empty' }));
    if (this.#format) return callback();
    this.#releaseHead().then(() => callback(), callback);
  }

  async #releaseHead(): Promise<void> {
    const head = Buffer.concat(this.#head);
    this.#head = [];
    const detected = await fileTypeFromBuffer(head);
    const format = acceptedFormatOf(detected?.ext);
    const limit = format ? this.#policy.maxBytes[format.kind] : undefined;
    if (!format || limit === undefined) {
      throw unacceptedFile(this.#policy, `content ${detected?.mime ?? 'unknown'} is not accepted here`);
    }
    const contradiction = this.#claimedKinds.find((kind) => kind !== format.kind);
    if (contradiction) throw unacceptedFile(this.#policy, `named or typed as ${contradiction}, but the content is ${format.contentType}`);
    this.#format = format;
    this.#limit = limit;
    if (this.#bytes > limit) throw fileTooLarge(this.#policy);
    this.push(head);
  }
}
