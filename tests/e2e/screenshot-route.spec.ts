import { expect, test } from "@playwright/test";
import sharp from "sharp";
import { trajectoryId } from "./fixtures";

/** A stored screenshot's hash, asked through the same tRPC endpoint the player uses. */
async function someHash(request: import("@playwright/test").APIRequestContext): Promise<string> {
  const input = encodeURIComponent(JSON.stringify({ json: { id: trajectoryId("shop-structured-1") } }));
  const res = await request.get(`/api/trpc/trajectories.byId?input=${input}`);
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { result: { data: { json: { window: { steps: string } } } } };
  // The window's steps come as JSON text (see JsonText in server/domain/player/paging.ts).
  const steps = JSON.parse(body.result.data.json.window.steps) as { screenshot: { hash: string } | null }[];
  const hash = steps[0]?.screenshot?.hash;
  expect(hash).toMatch(/^[0-9a-f]{64}$/);
  return hash!;
}

test.describe("screenshot route", () => {
  test("serves the original bytes with immutable caching and an ETag", async ({ request }) => {
    const hash = await someHash(request);
    const res = await request.get(`/api/screenshots/${hash}`);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toBe("image/png");
    expect(res.headers()["cache-control"]).toBe("private, max-age=31536000, immutable");
    expect(res.headers()["etag"]).toBe(`"${hash}"`);
    const meta = await sharp(await res.body()).metadata();
    expect([meta.width, meta.height]).toEqual([1024, 768]);

    const again = await request.get(`/api/screenshots/${hash}`, { headers: { "If-None-Match": `"${hash}"` } });
    expect(again.status()).toBe(304);
  });

  test("serves resized WebP and AVIF variants at snapped widths", async ({ request }) => {
    const hash = await someHash(request);
    const webp = await request.get(`/api/screenshots/${hash}?w=300`);
    expect(webp.status()).toBe(200);
    expect(webp.headers()["content-type"]).toBe("image/webp");
    expect(webp.headers()["etag"]).toBe(`"${hash}-w320.webp"`);
    expect((await sharp(await webp.body()).metadata()).width).toBe(320);

    const avif = await request.get(`/api/screenshots/${hash}?w=160&f=avif`);
    expect(avif.headers()["content-type"]).toBe("image/avif");
    expect((await sharp(await avif.body()).metadata()).width).toBe(160);

    // Wider than the original: never upscaled.
    const wide = await request.get(`/api/screenshots/${hash}?w=1920&f=webp`);
    expect((await sharp(await wide.body()).metadata()).width).toBe(1024);
  });

  test("refuses anything but a known hash", async ({ request }) => {
    for (const bad of ["0".repeat(64), "abc", "..%2F..%2Fetc%2Fpasswd", "%2E%2E", "A".repeat(64)]) {
      const res = await request.get(`/api/screenshots/${bad}`);
      expect(res.status(), bad).toBe(404);
    }
    const hash = await someHash(request);
    expect((await request.get(`/api/screenshots/${hash}?f=png`)).status()).toBe(400);
    expect((await request.get(`/api/screenshots/${hash}?w=-1`)).status()).toBe(400);
  });
});
