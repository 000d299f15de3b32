import type { UploadKind } from '../store/schema.ts';

/** A file format the service accepts, identified by the file's bytes (file-type), never by its name. */
export interface AcceptedFormat {
  kind: UploadKind;
  /** Extension of stored names. */
  ext: 'jpg' | 'png' | 'gif' | 'webp' | 'mp4';
  contentType: string;
  /** The type name image-size reports for it (images only). */
  imageSizeType?: string;
}

/**
 * The allow-list, keyed by file-type's `ext`. Only the plain `mp4` brands count as MP4: QuickTime
 * (`mov`), `m4v`, `m4a`, HEIF and AVIF share the container but are refused. APNG is stored as PNG.
 */
const ACCEPTED: Record<string, AcceptedFormat> = {
  jpg: { kind: 'image', ext: 'jpg', contentType: 'image/jpeg', imageSizeType: 'jpg' },
  png: { kind: 'image', ext: 'png', contentType: 'image/png', imageSizeType: 'png' },
  apng: { kind: 'image', ext: 'png', contentType: 'image/png', imageSizeType: 'png' },
  gif: { kind: 'image', ext: 'gif', contentType: 'image/gif', imageSizeType: 'gif' },
  webp: { kind: 'image', ext: 'webp', contentType: 'image/webp', imageSizeType: 'webp' },
  mp4: { kind: 'video', ext: 'mp4', contentType: 'video/mp4' },
};

export function acceptedFormatOf(detectedExt: string | undefined): AcceptedFormat | undefined {
  return detectedExt === undefined ? undefined : ACCEPTED[detectedExt];
}

const VIDEO_EXTENSIONS = new Set(['mp4', 'm4v', 'mov', 'qt', 'webm', 'mkv', 'avi', 'wmv', 'flv', '3gp', 'mpg', 'mpeg', 'ts', 'hevc', 'h264', 'h265']);
const IMAGE_EXTENSIONS = new Set(['jpg', 'jpeg', 'jpe', 'jfif', 'png', 'apng', 'gif', 'webp', 'bmp', 'tif', 'tiff', 'heic', 'heif', 'avif', 'svg', 'ico']);

/**
 * The kinds a client claims for a file through its name's extension and its part's Content-Type
 * (none for `upload.bin` sent as `application/octet-stream`). The bytes decide what a file is;
 * a claim can only get it refused, when it contradicts them (a PNG renamed `.mp4`).
 */
export function claimedKinds(filename: string | undefined, mimetype: string | undefined): UploadKind[] {
  const claims: UploadKind[] = [];
  const dot = filename?.lastIndexOf('.') ?? -1;
  const extension = filename && dot >= 0 ? filename.slice(dot + 1).toLowerCase() : '';
  if (VIDEO_EXTENSIONS.has(extension)) claims.push('video');
  if (IMAGE_EXTENSIONS.has(extension)) claims.push('image');
  const type = mimetype?.toLowerCase() ?? '';
  if (type.startsWith('video/')) claims.push('video');
  if (type.startsWith('image/')) claims.push('image');
  return claims;
}

export const MiB = 1024 * 1024;
/** The specification's limits. */
export const MAX_VIDEO_BYTES = 10 * MiB;
export const MAX_SECURE_FILE_BYTES = 10 * MiB;
export const MAX_IMAGE_SIDE_PX = 23_000;
/** H.264 at most 3840x2160; a portrait video (2160x3840) is the same size turned. */
export const MAX_VIDEO_LONG_SIDE_PX = 3840;
export const MAX_VIDEO_SHORT_SIDE_PX = 2160;
/** Sample entries of H.264. */
export const H264_SAMPLE_ENTRIES = ['avc1', 'avc3'];
