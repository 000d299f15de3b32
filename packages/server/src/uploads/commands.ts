import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/database.ts';
import type { FileStorage } from '../storage/index.ts';
import type { Logger } from 'pino';
import { epochSeconds } from '../store/database.ts';
import type { PartnerRow, UploadedFileRow } from '../store/schema.ts';
import { inspectUpload } from './inspect.ts';
import type { UploadPolicy } from './policy.ts';
import { discardUpload, receiveUpload, uploadTempDir } from './receive.ts';
import { STORED_NAME } from './serve.ts';
import { findUploadedFile, insertUploadedFile } from './store.ts';

/**
 * Receives, checks and stores one upload of a partner (A4 to A6): the bytes are sniffed and limited
 * while streaming, the headers checked, then the file is put in the storage under a new
 * `<uuid>.<ext>` name and recorded. Either all of that happens or nothing is left: no stored
 * object, no row, no temporary file.
 */
export async function storeUpload(
  deps: { config: Readonly<Config>; store: Store; files: FileStorage; log: Logger },
  partner: PartnerRow,
  request: FastifyRequest,
  policy: UploadPolicy,
): Promise<UploadedFileRow> {
  const upload = await receiveUpload(request, policy, uploadTempDir(deps.config.dataDir));
  try {
    const size = await inspectUpload(upload.path, upload.format, policy);
    const name = `${randomUUID()}.${upload.format.ext}`;
    const row: UploadedFileRow = {
      name,
      storage_key: `${policy.visibility}/${name}`,
      visibility: policy.visibility,
      partner_id: partner.id,
      kind: upload.format.kind,
      content_type: upload.format.contentType,
      size_bytes: upload.bytes,
      width: size.width,
      height: size.height,
      created_at: epochSeconds(),
    };
    await deps.files.put(row.storage_key, upload.path, { contentType: row.content_type });
    try {
      await insertUploadedFile(deps.store.db, row);
    } catch (error) {
      await deps.files.delete(row.storage_key).catch((cleanup: Error) =>
        deps.log.error(`upload ${row.storage_key} could not be removed after a failed insert: ${cleanup.message}`),
      );
      throw error;
    }
    return row;
  } finally {
    await discardUpload(upload);
  }
}

/** The URL at which a public file is fetched: the storage's own public URL, or the service's file route. */
export function publicFileUrl(deps: { config: Readonly<Config>; files: FileStorage }, file: Pick<UploadedFileRow, 'name' | 'storage_key'>): string {
  return deps.files.publicUrl(file.storage_key) ?? `${deps.config.publicUrl}/v2/files/${file.name}`;
}

/** A stored file by its `<uuid>.<ext>` name; undefined for any other name without a lookup. */
export async function findStoredFile(deps: { store: Store }, name: string): Promise<UploadedFileRow | undefined> {
  return STORED_NAME.test(name) ? findUploadedFile(deps.store.db, name) : undefined;
}
