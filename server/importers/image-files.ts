/**
 * Screenshot files as importers meet them in other people's clones: real images, Git LFS pointer files left in their
 * place (a clone made without `git lfs pull` has a few lines of text under each `.png` name), images embedded as
 * base64 data URLs, and numbered file names in every spelling (`3_full_screenshot.png`, `step_3.png`, `0003.png`).
 */
import fsp from "node:fs/promises";
import path from "node:path";
import { readImageInfo, type ImageInfo } from "../domain/image-info";
import { fileImage } from "./fs-helpers";
import type { ImageRef } from "./types";

const LFS_POINTER = "version https://git-lfs.github.com/spec/v1";
/** Enough of a file to tell a pointer from an image and to read a PNG's or (nearly always) a JPEG's size. */
const HEAD_BYTES = 64 * 1024;

export const IMAGE_FILE = /\.(png|jpe?g|webp|gif)$/i;

export function isLfsPointer(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, LFS_POINTER.length)).toString("latin1") === LFS_POINTER;
}

export type ImageProbe = { kind: "image"; ref: ImageRef; info: ImageInfo | null } | { kind: "lfs-pointer" } | { kind: "missing" };

/** Looks at the head of an image file: an image (with its size when the head holds it), a Git LFS pointer, or absent. */
export async function probeImageFile(file: string): Promise<ImageProbe> {
  let head: Buffer;
  try {
    const handle = await fsp.open(file, "r");
    try {
      const buf = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
      head = buf.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch {
    return { kind: "missing" };
  }
  if (isLfsPointer(head)) return { kind: "lfs-pointer" };
  // Anything else is handed on as an image: the import checks every image it stores and names a file that is not one.
  return { kind: "image", ref: fileImage(file), info: readImageInfo(head) };
}

/** An image given inline as a data URL (`data:image/png;base64,…`); null when the text is not one. */
export function dataUrlImage(text: string, origin: string): { ref: ImageRef; info: ImageInfo | null } | null {
  const m = /^data:image\/[a-z+.-]+;base64,([\s\S]+)$/i.exec(text.trim());
  if (!m) return null;
  const bytes = Buffer.from(m[1]!.replace(/\s+/g, ""), "base64");
  return { ref: { origin, read: async () => bytes }, info: readImageInfo(bytes) };
}

/** Bare base64 image bytes (Browser Use's older `state.screenshot`); null when they do not decode to anything. */
export function base64Image(text: string, origin: string): { ref: ImageRef; info: ImageInfo | null } | null {
  const inline = dataUrlImage(text, origin);
  if (inline) return inline;
  if (!/^[A-Za-z0-9+/=\s]+$/.test(text.slice(0, 256))) return null;
  const bytes = Buffer.from(text.replace(/\s+/g, ""), "base64");
  return bytes.byteLength ? { ref: { origin, read: async () => bytes }, info: readImageInfo(bytes) } : null;
}

/**
 * The step number a screenshot's file name carries: its first run of digits, as Online-Mind2Web's WebJudge orders
 * them (`3_full_screenshot.png` → 3, `step_12.png` → 12, `0007.png` → 7); null for names without one.
 */
export function screenshotNumber(name: string): number | null {
  const m = /\d+/.exec(path.basename(name));
  return m ? Number(m[0]) : null;
}

/** Image files of a folder with a number in their name, in WebJudge's order (by that number, then by name). */
export async function numberedImages(dir: string): Promise<{ name: string; file: string; n: number }[]> {
  const names = await fsp.readdir(dir).catch(() => [] as string[]);
  return names
    .filter((n) => IMAGE_FILE.test(n))
    .map((name) => ({ name, file: path.join(dir, name), n: screenshotNumber(name) }))
    .filter((x): x is { name: string; file: string; n: number } => x.n !== null)
    .sort((a, b) => a.n - b.n || a.name.localeCompare(b.name, "en", { numeric: true }));
}
