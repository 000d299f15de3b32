import { open } from 'node:fs/promises';
import { createFile, MP4BoxBuffer, type Movie } from 'mp4box';

/** What the upload check needs to know about an MP4. */
export interface Mp4Summary {
  /** Codec strings of the video tracks (`avc1.640033`, `hvc1.1.6.L93`, ...). */
  videoCodecs: string[];
  /** Largest width and height over the video tracks, from tkhd and from the sample entries. */
  width: number;
  height: number;
}

const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * Parses the boxes of an MP4 file (mp4box) until its movie box is read, without keeping media data.
 * Undefined when the file has no complete moov (truncated, or not an MP4 at all) or cannot be parsed.
 *
 * @example
 * const summary = await readMp4Summary('/tmp/upload.mp4'); // { videoCodecs: ['avc1.640033'], width: 1280, height: 720 }
 */
export async function readMp4Summary(path: string): Promise<Mp4Summary | undefined> {
  const file = createFile();
  let movie: Movie | undefined;
  let failed = false;
  file.onReady = (info) => {
    movie = info;
  };
  file.onError = () => {
    failed = true;
  };
  const handle = await open(path, 'r');
  try {
    let offset = 0;
    for (;;) {
      const chunk = Buffer.alloc(READ_CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, offset);
      if (bytesRead === 0) break;
      const bytes = chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + bytesRead);
      file.appendBuffer(MP4BoxBuffer.fromArrayBuffer(bytes, offset));
      offset += bytesRead;
      if (movie || failed) break;
    }
    file.flush();
  } catch {
    // A malformed box makes the parser throw: that file is not an MP4 we accept.
    return undefined;
  } finally {
    await handle.close();
  }
  if (failed || !movie?.hasMoov) return undefined;
  const videoTracks = movie.videoTracks;
  return {
    videoCodecs: videoTracks.map((track) => track.codec),
    width: Math.max(0, ...videoTracks.flatMap((track) => [track.track_width, track.video?.width ?? 0])),
    height: Math.max(0, ...videoTracks.flatMap((track) => [track.track_height, track.video?.height ?? 0])),
  };
}
