/**
 * Writes the zip bomb of the security review (L4): a small archive whose `manifest.json` expands to `mb`
 * megabytes of zeros. Deflating 400 MB takes seconds, so one megabyte is deflated once (ending on a full flush,
 * which makes the block independent) and repeated; the archive's headers are written by hand around it.
 */
import fs from "node:fs";
import zlib from "node:zlib";

export function writeZipBomb(file: string, mb = 400): string {
  const megabyte = Buffer.alloc(1024 * 1024);
  const block = zlib.deflateRawSync(megabyte, { finishFlush: zlib.constants.Z_FULL_FLUSH });
  const last = zlib.deflateRawSync(Buffer.alloc(0));
  let crc = 0;
  for (let i = 0; i < mb; i++) crc = zlib.crc32(megabyte, crc);
  const size = mb * megabyte.length;
  const compressed = block.length * mb + last.length;
  const name = Buffer.from("manifest.json");

  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4); // version needed
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(compressed, 18);
  local.writeUInt32LE(size, 22);
  local.writeUInt16LE(name.length, 26);

  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(compressed, 20);
  central.writeUInt32LE(size, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(0, 42); // local header offset

  const centralOffset = local.length + name.length + compressed;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(centralOffset, 16);

  const fd = fs.openSync(file, "w");
  try {
    fs.writeSync(fd, Buffer.concat([local, name]));
    for (let i = 0; i < mb; i++) fs.writeSync(fd, block);
    fs.writeSync(fd, Buffer.concat([last, central, name, end]));
  } finally {
    fs.closeSync(fd);
  }
  return file;
}
