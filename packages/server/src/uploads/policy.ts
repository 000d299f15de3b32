import type { Config } from '../config/config.ts';
import { AppError } from '../errors/app-error.ts';
import type { UploadKind, UploadVisibility } from '../store/schema.ts';
import { MAX_SECURE_FILE_BYTES, MAX_VIDEO_BYTES } from './formats.ts';
import { Errors } from '../errors/codes.ts';

/** What one upload endpoint accepts and where the file goes. */
export interface UploadPolicy {
  visibility: UploadVisibility;
  /** Byte limit per kind; a kind without a limit is not accepted here (`unacceptedFile`). */
  maxBytes: Partial<Record<UploadKind, number>>;
}

/** A4 `POST /v2/wallet/image`: images only, public. */
export function imagePolicy(config: Pick<Config, 'uploads'>): UploadPolicy {
  return { visibility: 'public', maxBytes: { image: config.uploads.maxImageBytes } };
}

/** A5 `POST /v2/wallet/nftResource`: images and videos (10 MiB), public. */
export function resourcePolicy(config: Pick<Config, 'uploads'>): UploadPolicy {
  return { visibility: 'public', maxBytes: { image: config.uploads.maxImageBytes, video: MAX_VIDEO_BYTES } };
}

/** A6 `POST /v2/wallet/nftResource/secure`: images and videos, every file at most 10 MiB, served only after an access check. */
export function securePolicy(): UploadPolicy {
  return { visibility: 'secure', maxBytes: { image: MAX_SECURE_FILE_BYTES, video: MAX_SECURE_FILE_BYTES } };
}

/** The largest file any kind of the policy allows: the cut-off before the kind is known. */
export function largestAllowed(policy: UploadPolicy): number {
  return Math.max(0, ...Object.values(policy.maxBytes));
}

/**
 * 4100 and 4101 are the specification's codes for "upload animation file" refusals: they answer on
 * the endpoints that take videos (A5, A6). The image endpoint (A4) takes no videos, so its
 * refusals are the registry's 400 with a message saying what it takes.
 */
function takesVideos(policy: UploadPolicy): boolean {
  return policy.maxBytes.video !== undefined;
}

const IMAGE_FORMATS = 'JPEG, PNG, GIF or WebP images';

/** A file whose content the endpoint does not take (wrong format, unreadable header, too many pixels). */
export function unacceptedFile(policy: UploadPolicy, detail: string, cause?: unknown): AppError {
  if (takesVideos(policy)) return new AppError(Errors.UploadNotAccepted, { detail, cause });
  return new AppError(Errors.BadRequest, { detail: `${detail}; this endpoint takes ${IMAGE_FORMATS}`, cause });
}

/** A file over the endpoint's byte limit for its kind. */
export function fileTooLarge(policy: UploadPolicy): AppError {
  if (takesVideos(policy)) return new AppError(Errors.UploadTooLarge);
  return new AppError(Errors.BadRequest, { detail: `images may be at most ${largestAllowed(policy)} bytes` });
}
