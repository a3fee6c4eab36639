// A minimal ZIP writer (PKWARE APPNOTE 6.3: local headers, central directory, end record;
// store or raw-deflate entries) over node:zlib, enough for Ray's working_dir packages. Ray
// unpacks them with Python's zipfile. No ZIP64: a package is far below 4 GiB by our size limit.
import * as zlib from 'node:zlib';

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export interface ZipEntry {
  /** Path inside the archive, '/'-separated, no leading slash. */
  name: string;
  data: Buffer;
  /** Unix mode bits (e.g. 0o755 for scripts); default 0o644. */
  mode?: number;
}

/** Fixed DOS timestamp (1980-01-01 00:00): equal inputs give byte-equal archives, so the
 *  content hash (and Ray's package cache) is stable across runs. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

export function zip(entries: readonly ZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  if (entries.length > 0xffff) throw new Error(`too many files for a zip without ZIP64: ${entries.length}`);
  for (const e of entries) {
    if (e.name.startsWith('/') || e.name.split('/').includes('..')) throw new Error(`unsafe zip entry name: ${e.name}`);
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(e.data);
    const deflated = e.data.length > 64 ? zlib.deflateRawSync(e.data, { level: 6 }) : undefined;
    const useDeflate = deflated !== undefined && deflated.length < e.data.length;
    const body = useDeflate ? deflated! : e.data;
    const method = useDeflate ? 8 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    parts.push(local, name, body);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, so external attrs carry the mode
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(0x0800, 8);
    cd.writeUInt16LE(method, 10);
    cd.writeUInt16LE(DOS_TIME, 12);
    cd.writeUInt16LE(DOS_DATE, 14);
    cd.writeUInt32LE(crc, 16);
    cd.writeUInt32LE(body.length, 20);
    cd.writeUInt32LE(e.data.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE((((0o100000 | (e.mode ?? 0o644)) & 0xffff) << 16) >>> 0, 38);
    cd.writeUInt32LE(offset, 42);
    central.push(cd, name);
    offset += local.length + name.length + body.length;
    if (offset > 0xffffffff) throw new Error('zip too large (no ZIP64 support)');
  }
  const cdBuf = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cdBuf.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cdBuf, end]);
}
