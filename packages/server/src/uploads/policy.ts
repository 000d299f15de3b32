import type { Config } from '../config/config.ts';
import type { UploadKind, UploadVisibility } from '../store/schema.ts';
import { MAX_SECURE_FILE_BYTES, MAX_VIDEO_BYTES } from './formats.ts';

/** What one upload endpoint accepts and where the file goes. */
export interface UploadPolicy {
  visibility: UploadVisibility;
  /** Byte limit per kind; a kind without a limit is not accepted here (4101). */
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
