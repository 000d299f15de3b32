import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { assertStorageKey, type ByteRange, type FileStorage, type StoredObject } from './file-storage.ts';

export interface S3StorageSettings {
  bucket: string;
  region: string;
  endpoint?: string | undefined;
  forcePathStyle?: boolean | undefined;
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  publicBaseUrl?: string | undefined;
}

/**
 * Files in an S3-compatible bucket. A PutObject is atomic on S3 (an object appears whole or not at
 * all), so no staging is needed. The SDK is loaded only when this storage is configured.
 */
export class S3FileStorage implements FileStorage {
  readonly kind = 's3' as const;
  readonly #client: S3Client;
  readonly #sdk: typeof import('@aws-sdk/client-s3');
  readonly #settings: S3StorageSettings;

  private constructor(sdk: typeof import('@aws-sdk/client-s3'), settings: S3StorageSettings) {
    this.#sdk = sdk;
    this.#settings = settings;
    this.#client = new sdk.S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.forcePathStyle !== undefined ? { forcePathStyle: settings.forcePathStyle } : {}),
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
      // Checksums only where S3 requires them: many S3-compatible servers reject the newer default ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  static async open(settings: S3StorageSettings): Promise<S3FileStorage> {
    return new S3FileStorage(await import('@aws-sdk/client-s3'), settings);
  }

  async put(key: string, source: string | Uint8Array, options: { contentType: string }): Promise<void> {
    assertStorageKey(key);
    const contentLength = typeof source === 'string' ? (await stat(source)).size : source.byteLength;
    const body = typeof source === 'string' ? createReadStream(source) : source;
    try {
      await this.#client.send(
        new this.#sdk.PutObjectCommand({
          Bucket: this.#settings.bucket,
          Key: key,
          Body: body,
          ContentLength: contentLength,
          ContentType: options.contentType,
        }),
      );
    } finally {
      if (body instanceof Readable) body.destroy();
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | undefined> {
    assertStorageKey(key);
    try {
      const output = await this.#client.send(
        new this.#sdk.GetObjectCommand({
          Bucket: this.#settings.bucket,
          Key: key,
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      if (!(output.Body instanceof Readable)) throw new Error(`S3 object ${key} has no stream body`);
      return { body: output.Body, contentLength: output.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertStorageKey(key);
    await this.#client.send(new this.#sdk.DeleteObjectCommand({ Bucket: this.#settings.bucket, Key: key }));
  }

  async exists(key: string): Promise<boolean> {
    assertStorageKey(key);
    try {
      await this.#client.send(new this.#sdk.HeadObjectCommand({ Bucket: this.#settings.bucket, Key: key }));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  publicUrl(key: string): string | undefined {
    const base = this.#settings.publicBaseUrl;
    return base ? `${base.replace(/\/+$/, '')}/${key}` : undefined;
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}

function isNotFound(error: unknown): boolean {
  const value = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return value?.name === 'NoSuchKey' || value?.name === 'NotFound' || value?.$metadata?.httpStatusCode === 404;
}
