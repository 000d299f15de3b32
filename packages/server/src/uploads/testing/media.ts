import { deflateSync } from 'node:zlib';

/**
 * Minimal media files built in code for the upload tests: real headers and box structures, just
 * enough for content sniffing, image-size and an MP4 box parser; pixel data is blank.
 */

/** A PNG (8-bit grey) of the given size. Pixel data is real for small images and a stub for huge ones. */
export function buildPng({ width, height }: { width: number; height: number }): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(0, 9); // greyscale
  const rawBytes = (width + 1) * height;
  const pixels = rawBytes <= 4_000_000 ? deflateSync(Buffer.alloc(rawBytes)) : deflateSync(Buffer.alloc(0));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', pixels),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A baseline JPEG header (SOI, JFIF, SOF0, EOI) declaring the given size. */
export function buildJpeg({ width, height }: { width: number; height: number }): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const sof0 = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0, 0, 0, 0, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01]);
  sof0.writeUInt16BE(height, 5);
  sof0.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof0, Buffer.from([0xff, 0xd9])]);
}

/** A GIF89a with the given logical screen size and no frames. */
export function buildGif({ width, height }: { width: number; height: number }): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  return Buffer.concat([Buffer.from('GIF89a', 'latin1'), screen, Buffer.from([0x3b])]);
}

/** An extended-format WebP (VP8X) declaring the given canvas size. */
export function buildWebp({ width, height }: { width: number; height: number }): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x.writeUIntLE(width - 1, 4, 3);
  vp8x.writeUIntLE(height - 1, 7, 3);
  const chunk = Buffer.concat([Buffer.from('VP8X', 'latin1'), u32le(vp8x.length), vp8x]);
  const body = Buffer.concat([Buffer.from('WEBP', 'latin1'), chunk]);
  return Buffer.concat([Buffer.from('RIFF', 'latin1'), u32le(body.length), body]);
}

export interface Mp4Options {
  /** Sample entry of the video track: avc1/avc3 are H.264, hvc1/hev1 are H.265. */
  codec?: 'avc1' | 'avc3' | 'hvc1' | 'hev1';
  width?: number;
  height?: number;
  /** Bytes of (blank) media data; the file is a little larger than this. */
  mediaBytes?: number;
  /** Where the movie box goes: before the media data (fast start), after it, or nowhere (truncated). */
  moov?: 'first' | 'last' | 'missing';
  /** Leave the video track out (an audio-less, video-less movie). */
  withoutVideoTrack?: boolean;
}

/**
 * An MP4: ftyp, moov (mvhd, one video trak with tkhd width/height and an stsd sample entry carrying
 * avcC or hvcC) and mdat.
 */
export function buildMp4(options: Mp4Options = {}): Buffer {
  const { codec = 'avc1', width = 1280, height = 720, mediaBytes = 1024, moov = 'first' } = options;
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(512), Buffer.from('isomiso2avc1mp41', 'latin1'));
  const mdat = box('mdat', Buffer.alloc(mediaBytes));
  if (moov === 'missing') return Buffer.concat([ftyp, mdat]);
  const movie = box('moov', movieHeader(), ...(options.withoutVideoTrack ? [] : [videoTrack(codec, width, height)]));
  return Buffer.concat(moov === 'first' ? [ftyp, movie, mdat] : [ftyp, mdat, movie]);
}

/** The head of an MP4 (ftyp and the start of an mdat) declaring a media box of `declaredBytes`: for streamed-size tests. */
export function mp4Head(declaredBytes: number): Buffer {
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(512), Buffer.from('isomiso2avc1mp41', 'latin1'));
  const mdatHeader = Buffer.concat([u32(1), Buffer.from('mdat', 'latin1'), u64(declaredBytes + 16)]);
  return Buffer.concat([ftyp, mdatHeader]);
}

function movieHeader(): Buffer {
  return fullBox('mvhd', 0, 0, u32(0), u32(0), u32(1000), u32(1000), u32(0x00010000), u16(0x0100), Buffer.alloc(10), identityMatrix(), Buffer.alloc(24), u32(2));
}

function videoTrack(codec: string, width: number, height: number): Buffer {
  const tkhd = fullBox(
    'tkhd', 0, 3,
    u32(0), u32(0), u32(1), u32(0), u32(1000), Buffer.alloc(8), u16(0), u16(0), u16(0), u16(0), identityMatrix(),
    u32(width * 65536), u32(height * 65536),
  );
  const mdhd = fullBox('mdhd', 0, 0, u32(0), u32(0), u32(1000), u32(1000), u16(0x55c4), u16(0));
  const hdlr = fullBox('hdlr', 0, 0, u32(0), Buffer.from('vide', 'latin1'), Buffer.alloc(12), Buffer.from('VideoHandler\0', 'latin1'));
  const vmhd = fullBox('vmhd', 0, 1, Buffer.alloc(8));
  const dinf = box('dinf', fullBox('dref', 0, 0, u32(1), fullBox('url ', 0, 1)));
  const stbl = box(
    'stbl',
    fullBox('stsd', 0, 0, u32(1), sampleEntry(codec, width, height)),
    fullBox('stts', 0, 0, u32(0)),
    fullBox('stsc', 0, 0, u32(0)),
    fullBox('stsz', 0, 0, u32(0), u32(0)),
    fullBox('stco', 0, 0, u32(0)),
  );
  return box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf', vmhd, dinf, stbl)));
}

function sampleEntry(codec: string, width: number, height: number): Buffer {
  const compressorName = Buffer.alloc(32);
  const visual = Buffer.concat([
    Buffer.alloc(6), u16(1), // reserved, data_reference_index
    u16(0), u16(0), Buffer.alloc(12), // pre_defined, reserved, pre_defined
    u16(width), u16(height),
    u32(0x00480000), u32(0x00480000), u32(0), u16(1), compressorName, u16(0x0018), u16(0xffff),
  ]);
  const config = codec.startsWith('avc') ? avcConfiguration() : hevcConfiguration();
  return box(codec, visual, config);
}

function avcConfiguration(): Buffer {
  const sps = Buffer.from([0x67, 0x64, 0x00, 0x33, 0xac, 0x2b, 0x40]);
  const pps = Buffer.from([0x68, 0xee, 0x3c, 0x80]);
  return box('avcC', Buffer.from([1, 0x64, 0x00, 0x33, 0xff, 0xe1]), u16(sps.length), sps, Buffer.from([1]), u16(pps.length), pps);
}

function hevcConfiguration(): Buffer {
  return box(
    'hvcC',
    Buffer.from([1, 0x01, 0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x5d, 0xf0, 0x00, 0xfc, 0xfd, 0xf8, 0xf8, 0, 0, 0x0f, 0]),
  );
}

function identityMatrix(): Buffer {
  return Buffer.concat([u32(0x00010000), u32(0), u32(0), u32(0), u32(0x00010000), u32(0), u32(0), u32(0), u32(0x40000000)]);
}

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  return Buffer.concat([u32(body.length + 8), Buffer.from(type, 'latin1'), body]);
}

function fullBox(type: string, version: number, flags: number, ...payload: Buffer[]): Buffer {
  return box(type, Buffer.from([version, (flags >> 16) & 0xff, (flags >> 8) & 0xff, flags & 0xff]), ...payload);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32(data.length), typed, u32(crc32(typed))]);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16BE(value);
  return buffer;
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value >>> 0);
  return buffer;
}

function u32le(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value >>> 0);
  return buffer;
}

function u64(value: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(value));
  return buffer;
}
