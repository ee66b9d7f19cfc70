"use client";
import { useLayoutEffect, useState, type RefObject } from "react";

/** The content-box size of an element, kept current with a ResizeObserver. Zero until measured. */
export function useElementSize(ref: RefObject<HTMLElement | null>): { width: number; height: number } {
  const [size, setSize] = useState({ width: 0, height: 0 });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      const r = el.getBoundingClientRect();
      const cs = getComputedStyle(el);
      const w = Math.max(0, r.width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight));
      const h = Math.max(0, r.height - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom));
      setSize((s) => (Math.abs(s.width - w) < 0.5 && Math.abs(s.height - h) < 0.5 ? s : { width: w, height: h }));
    };
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return size;
}
