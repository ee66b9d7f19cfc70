/**
 * The fuzzy image match end to end: sharp decodes, the pure code resizes (Pillow-style Lanczos) and computes SSIM.
 * Reference values: Pillow 9.4 + scikit-image 0.19.3 running VisualWebArena's get_image_ssim on the same images,
 * where the small copy is `A.resize((w // d, h // d), Image.LANCZOS)`.
 */
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { buildVwaEvaluator } from "../../server/domain/evaluation/vwa/evaluate";
import { premultiply, resizeLanczos, unpremultiply } from "../../server/domain/evaluation/vwa/resample";
import { imageSsim, localReferenceImages } from "../../server/services/evaluation/images";

// Three small task input images copied from VisualWebArena under tests/fixtures (see its README), at their paths there.
const root = path.resolve(import.meta.dirname, "..", "fixtures", "visualwebarena");
const inputs = "environment_docker/webarena-homepage/static/input_images";

/** A 1/d copy made with the same resampler Pillow uses, as PNG. */
async function shrink(bytes: Buffer, d: number): Promise<Buffer> {
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  const w = Math.floor(info.width / d);
  const h = Math.floor(info.height / d);
  const px = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const alpha = info.channels === 4;
  const out = alpha
    ? unpremultiply(resizeLanczos(premultiply(px, 4), info.width, info.height, 4, w, h), 4)
    : resizeLanczos(px, info.width, info.height, info.channels, w, h);
  return sharp(Buffer.from(out), { raw: { width: w, height: h, channels: info.channels } })
    .png()
    .toBuffer();
}

describe("fuzzy image match (SSIM) on VisualWebArena input images", () => {
  it.each([
    ["shopping/task_351/input_0.png", 2, 0.9454906035194294],
    ["shopping/task_351/input_0.png", 8, 0.7291372177463995],
    ["reddit/task_176/input_0.png", 2, 0.9287710797561555],
    ["reddit/task_176/input_0.png", 8, 0.7080673291241284],
    ["reddit/task_177/input_0.png", 2, 0.8666392823875796],
    ["reddit/task_177/input_0.png", 8, 0.6268419313794563],
  ])("%s at 1/%i matches VWA's pipeline", async (file, d, want) => {
    const original = fs.readFileSync(path.join(root, inputs, file));
    const small = await shrink(original, d);
    const got = await imageSsim(original, small);
    expect(got).toBeCloseTo(want, 4);
    expect(await imageSsim(small, original)).toBeCloseTo(got, 12);
    expect(await imageSsim(original, original)).toBe(1);
  });

  it("decides a page_image_query: a 2× smaller copy passes a 0.9 threshold, an 8× one fails", async () => {
    const rel = path.join(inputs, "shopping/task_351/input_0.png");
    const original = fs.readFileSync(path.join(root, rel));
    const config = {
      eval_types: ["page_image_query"],
      page_image_query: [{ eval_image_url: "last", eval_image_class: ".product-image", eval_fuzzy_image_match: rel, ssim_threshold: 0.9 }],
    };
    const ev = buildVwaEvaluator(config, "hand-made image task");
    const onPage = async (d: number) =>
      ev.evaluate(
        { intent: "", finalAnswer: null, finalUrl: null },
        { live: { pageImages: async () => [await shrink(original, d)] }, referenceImage: localReferenceImages(root), imageSimilarity: imageSsim },
      );
    const pass = await onPage(2);
    expect(pass.verdict).toBe("success");
    expect(pass.types[0]!.checks[0]!.observed).toBeCloseTo(0.945491, 4);
    expect((await onPage(8)).verdict).toBe("failure");
  });

  it("reads reference images only from inside its root", async () => {
    const load = localReferenceImages(root);
    expect(await load(path.join(inputs, "reddit/task_176/input_0.png"))).not.toBeNull();
    expect(await load("../../etc/passwd")).toBeNull();
    expect(await load("https://images.example/x.png")).toBeNull();
    expect(await load("missing.png")).toBeNull();
  });
});
