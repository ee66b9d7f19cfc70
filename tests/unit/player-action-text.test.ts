import { describe, expect, it } from "vitest";
import { describeAction } from "../../server/domain/player/action-text";

describe("describeAction: coordinate actions", () => {
  it("names a drag's end point and a scroll's distance", () => {
    expect(describeAction({ type: "drag", coords: [900, 300], to: [500, 300] })).toBe("Drag (900, 300) → (500, 300)");
    expect(describeAction({ type: "scroll", direction: "down", delta: [0, 400] })).toBe("Scroll window ↓ 400 px");
    expect(describeAction({ type: "scroll", coords: [10, 20], direction: "left", delta: [-300, 0] })).toBe("Scroll (10, 20) ← 300 px");
    expect(describeAction({ type: "scroll", direction: "down", delta: [120, 400] })).toBe("Scroll window ↓ 120 × 400 px");
    // Without a recorded distance nothing changes.
    expect(describeAction({ type: "scroll", direction: "up" })).toBe("Scroll window ↑");
  });
});
