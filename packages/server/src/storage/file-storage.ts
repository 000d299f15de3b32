import type { Readable } from 'node:stream';

/** Inclusive byte range of a stored object, as in an HTTP `Range: bytes=start-end` header. */
export interface ByteRange {
  start: number;
  end: number;
}

/** The bytes of a stored object (or of a range of it), to be streamed to a client. */
export interface StoredObject {
  body: Readable;
  /** Bytes that `body` yields. */
  contentLength: number;
}

/**
 * Where uploaded files are kept: the data directory by default, or an S3-compatible bucket.
 * Keys are relative slash-separated paths such as `public/<uuid>.png` (see `assertStorageKey`).
 *
 * @example
 * await storage.put('public/1f0c….png', '/tmp/upload-123', { contentType: 'image/png' });
 * const object = await storage.get('public/1f0c….png');
 * object?.body.pipe(response);
 */
export interface FileStorage {
  readonly kind: 'local' | 's3';
  /**
   * Stores `source` (a file path or bytes) under `key`, all or nothing: a reader never sees part
   * of it, and a failed put leaves nothing behind. An existing object under `key` is replaced.
   */
  put(key: string, source: string | Uint8Array, options: { contentType: string }): Promise<void>;
  /** The object's bytes (or one range of them), or undefined when there is no such object. */
  get(key: string, range?: ByteRange): Promise<StoredObject | undefined>;
  /** Removes the object; removing a missing object is not an error. */
  delete(key: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** Where clients fetch a public object directly, when the storage publishes it itself (S3 `publicBaseUrl`). */
  publicUrl(key: string): string | undefined;
  close(): Promise<void>;
}

const STORAGE_KEY = /^[A-Za-z0-9][A-Za-z0-9_-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)+$/;

/** Keys are `segment/…/name` with no empty, dot-leading or `..` segment, so they can never leave the storage root. */
export function assertStorageKey(key: string): void {
  if (key.length > 512 || !STORAGE_KEY.test(key) || key.split('/').some((segment) => segment === '..')) {
    throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  }
}
