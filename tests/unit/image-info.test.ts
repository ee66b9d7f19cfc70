import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { readImageInfo } from "../../server/domain/image-info";

describe("readImageInfo", () => {
  const base = () => sharp({ create: { width: 37, height: 21, channels: 3, background: "#336699" } });
  it.each([
    ["png", () => base().png().toBuffer(), "image/png"],
    ["jpeg", () => base().jpeg().toBuffer(), "image/jpeg"],
    ["webp lossy", () => base().webp().toBuffer(), "image/webp"],
    ["webp lossless", () => base().webp({ lossless: true }).toBuffer(), "image/webp"],
    ["gif", () => base().gif().toBuffer(), "image/gif"],
  ])("reads %s headers", async (_name, make, mime) => {
    expect(readImageInfo(await make())).toEqual({ mime, width: 37, height: 21 });
  });
  it("rejects text and truncated files", async () => {
    expect(readImageInfo(Buffer.from("not an image, just text named .png"))).toBeNull();
    const png = await base().png().toBuffer();
    expect(readImageInfo(png.subarray(0, 12))).toBeNull();
    expect(readImageInfo(Buffer.alloc(0))).toBeNull();
  });
});
