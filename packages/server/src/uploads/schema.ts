import Type from 'typebox';
import { binaryBody, failureText } from '../http/schema.ts';

/** A4 answer: the public URL of the image. */
export const ImageUploadAnswer = Type.Object({ image: Type.String() });
/** A5 answer: the public URL of the image or video. */
export const ResourceUploadAnswer = Type.Object({ url: Type.String() });
/** A6 answer: the stored name, `<uuid>.<ext>`, that a card's `secure` object names. */
export const SecureUploadAnswer = Type.Object({ filename: Type.String() });
/** A4 to A6's failure outside the listed codes. */
export const UploadFailure = failureText('failed to upload');

/**
 * A4 to A6 take `multipart/form-data` with the file in the field `upload`. receive.ts reads and
 * checks the stream; this schema documents the form (routes.ts does not validate with it).
 */
export const UploadForm = Type.Unsafe<unknown>({
  type: 'object',
  required: ['upload'],
  properties: { upload: { type: 'string', contentMediaType: 'application/octet-stream', description: 'the file' } },
});

/** A stored file's bytes, as uploaded (images and videos). */
export const StoredFileBody = binaryBody(['image/*', 'video/*'], 'the bytes of the file, with its type');

/** Path of the file routes. */
export const StoredFileParams = Type.Object({ filename: Type.String() });
