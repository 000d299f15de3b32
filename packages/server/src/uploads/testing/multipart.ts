import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

/** One part of a multipart/form-data body. */
export interface FormPart {
  name: string;
  /** Present for a file part. */
  filename?: string;
  contentType?: string;
  content: Buffer | string;
}

/** A multipart/form-data body and its content-type header, for app.inject() and fetch. */
export function multipartBody(parts: FormPart[]): { payload: Buffer; headers: { 'content-type': string } } {
  const boundary = `----wallet-test-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    chunks.push(Buffer.from(partHeader(boundary, part), 'utf8'), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** One `upload` file part: the usual A4 to A6 body. */
export function uploadBody(content: Buffer, filename = 'file.bin', contentType = 'application/octet-stream') {
  return multipartBody([{ name: 'upload', filename, contentType, content }]);
}

/**
 * A multipart body whose one `upload` file is `head` followed by `fillerBytes` zero bytes, produced
 * lazily as the reader pulls (so a test can send gigabytes without holding them). `sent()` tells how
 * many bytes were pulled so far.
 */
export function streamingUploadBody(head: Buffer, fillerBytes: number, filename = 'big.mp4', contentType = 'video/mp4') {
  const boundary = `----wallet-test-${randomBytes(8).toString('hex')}`;
  const chunk = Buffer.alloc(64 * 1024);
  let sent = 0;
  async function* generate(): AsyncGenerator<Buffer> {
    const opening = Buffer.concat([
      Buffer.from(partHeader(boundary, { name: 'upload', filename, contentType, content: '' })),
      head,
    ]);
    sent += opening.length;
    yield opening;
    for (let remaining = fillerBytes; remaining > 0; remaining -= chunk.length) {
      const piece = remaining >= chunk.length ? chunk : chunk.subarray(0, remaining);
      sent += piece.length;
      yield piece;
    }
    const closing = Buffer.from(`\r\n--${boundary}--\r\n`);
    sent += closing.length;
    yield closing;
  }
  return {
    stream: Readable.from(generate(), { objectMode: false }),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    sent: () => sent,
  };
}

function partHeader(boundary: string, part: FormPart): string {
  const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
  return `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.contentType ? `Content-Type: ${part.contentType}\r\n` : ''}\r\n`;
}
