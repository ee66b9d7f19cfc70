/**
 * Which screenshot variant the player asks for: the displayed CSS width times the device pixel ratio, snapped
 * to the server's variant widths (so every viewer of a similar size shares one cached file).
 */
import { screenshotUrl, snapVariantWidth } from "@/server/domain/image-variants";

export function variantWidthFor(cssWidth: number): number {
  const dpr = typeof window === "undefined" ? 1 : window.devicePixelRatio || 1;
  return snapVariantWidth(cssWidth * dpr);
}

export function stepImageUrl(hash: string, cssWidth: number): string {
  return screenshotUrl(hash, { width: variantWidthFor(cssWidth), format: "webp" });
}
