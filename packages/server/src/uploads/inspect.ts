import { imageSizeFromFile } from 'image-size/fromFile';
import { AppError } from '../errors/app-error.ts';
import {
  H264_SAMPLE_ENTRIES,
  MAX_IMAGE_SIDE_PX,
  MAX_VIDEO_LONG_SIDE_PX,
  MAX_VIDEO_SHORT_SIDE_PX,
  type AcceptedFormat,
} from './formats.ts';
import { readMp4Summary } from './mp4.ts';
import { unacceptedFile, type UploadPolicy } from './policy.ts';
import { Errors } from '../errors/codes.ts';

export interface MediaSize {
  width: number;
  height: number;
}

/**
 * Checks what a sniffed file holds, from headers only (nothing is decoded): images at most 23000 px
 * a side, read with image-size and of the sniffed type; videos an MP4 with a moov, whose every video
 * track is H.264 (avc1/avc3), and at most 3840x2160 (either orientation). Any failure is the policy's
 * `unacceptedFile` (4101; videos reach here only on the endpoints that take them).
 */
export async function inspectUpload(path: string, format: AcceptedFormat, policy: UploadPolicy): Promise<MediaSize> {
  return format.kind === 'image' ? inspectImage(path, format, policy) : inspectVideo(path);
}

async function inspectImage(path: string, format: AcceptedFormat, policy: UploadPolicy): Promise<MediaSize> {
  let size: { width?: number; height?: number; type?: string };
  try {
    size = await imageSizeFromFile(path);
  } catch (error) {
    throw unacceptedFile(policy, 'the image header cannot be read', error);
  }
  const { width, height } = size;
  if (size.type !== format.imageSizeType || !width || !height) {
    throw unacceptedFile(policy, 'the image header cannot be read');
  }
  if (width > MAX_IMAGE_SIDE_PX || height > MAX_IMAGE_SIDE_PX) {
    throw unacceptedFile(policy, `images may be at most ${MAX_IMAGE_SIDE_PX} px a side; this one is ${width}x${height}`);
  }
  return { width, height };
}

async function inspectVideo(path: string): Promise<MediaSize> {
  const summary = await readMp4Summary(path);
  if (!summary) throw new AppError(Errors.UploadNotAccepted, { detail: 'not a complete MP4 (no movie box)' });
  if (summary.videoCodecs.length === 0) throw new AppError(Errors.UploadNotAccepted, { detail: 'the MP4 has no video track' });
  const other = summary.videoCodecs.find((codec) => !H264_SAMPLE_ENTRIES.includes(codec.slice(0, 4)));
  if (other) throw new AppError(Errors.UploadNotAccepted, { detail: `video tracks must be H.264 (avc1/avc3), not ${other}` });
  const longSide = Math.max(summary.width, summary.height);
  const shortSide = Math.min(summary.width, summary.height);
  if (longSide > MAX_VIDEO_LONG_SIDE_PX || shortSide > MAX_VIDEO_SHORT_SIDE_PX) {
    throw new AppError(Errors.UploadNotAccepted, { detail: `videos may be at most 3840x2160; this one is ${summary.width}x${summary.height}` });
  }
  return { width: Math.round(summary.width), height: Math.round(summary.height) };
}
