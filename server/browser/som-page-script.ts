/**
 * The Set-of-Marks scripts that run inside the page.
 *
 * They are kept as source text rather than TypeScript functions handed to page.evaluate(): transpilers (tsx,
 * esbuild's keepNames) wrap named functions with helpers such as `__name` that do not exist in the page, and a
 * string is exactly what Playwright sends anyway. Each script is an expression evaluating to a function that
 * Playwright calls with one JSON argument.
 *
 * Coordinates returned are CSS pixels relative to the viewport; som.ts converts them to screenshot pixels.
 */

/** Options understood by COLLECT_SCRIPT (all optional). */
export interface CollectScriptOptions {
  minArea?: number;
  minSide?: number;
  maxText?: number;
}

export interface CollectedElement {
  x: number;
  y: number;
  width: number;
  height: number;
  tag: string;
  text: string;
}

/**
 * Finds the interactive elements a person could use in the current viewport, in reading order.
 *
 * Interactive: links, buttons, form fields, summary, contenteditable, ARIA widget roles, elements with an onclick
 * handler or a non-negative tabindex, and elements whose own cursor is a pointer (not merely inherited from a
 * parent). Visible: a box inside the viewport, not hidden or transparent, and actually on top at its centre (or at
 * one of four inner points when the centre is covered), as `elementFromPoint` sees it. Tiny boxes are dropped, and
 * so are nested duplicates: a weak candidate (pointer cursor, onclick, tabindex) inside a link or button, and the
 * weaker of two nested candidates that cover nearly the same box.
 */
export const COLLECT_SCRIPT = String.raw`(options) => {
  const opts = Object.assign({ minArea: 20, minSide: 3, maxText: 80 }, options || {});
  const vw = document.documentElement.clientWidth || window.innerWidth;
  const vh = document.documentElement.clientHeight || window.innerHeight;
  const NATIVE = 'a[href], button, input:not([type="hidden"]), textarea, select, summary, [contenteditable=""], [contenteditable="true"], iframe, video[controls], audio[controls]';
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'switch', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem']);

  // 3 native control, 2 ARIA widget role, 1 handler/tabindex, 0 pointer cursor only.
  function strength(el, style) {
    if (el.matches(NATIVE)) return 3;
    const role = (el.getAttribute('role') || '').trim().toLowerCase();
    if (ROLES.has(role)) return 2;
    if (el.hasAttribute('onclick') || typeof el.onclick === 'function') return 1;
    const tabindex = el.getAttribute('tabindex');
    if (tabindex !== null && Number(tabindex) >= 0) return 1;
    if (style.cursor === 'pointer') {
      const parent = el.parentElement;
      if (!parent || getComputedStyle(parent).cursor !== 'pointer') return 0;
    }
    return -1;
  }

  function visibleBox(el) {
    let best = null;
    const rects = el.getClientRects();
    for (let i = 0; i < rects.length; i++) {
      const r = rects[i];
      const x0 = Math.max(0, r.left), y0 = Math.max(0, r.top);
      const x1 = Math.min(vw, r.right), y1 = Math.min(vh, r.bottom);
      if (x1 <= x0 || y1 <= y0) continue;
      const area = (x1 - x0) * (y1 - y0);
      if (!best || area > best.area) best = { x: x0, y: y0, width: x1 - x0, height: y1 - y0, area };
    }
    return best;
  }

  function hitsElement(el, x, y) {
    const root = el.getRootNode && el.getRootNode().elementFromPoint ? el.getRootNode() : document;
    const hit = root.elementFromPoint(x, y);
    if (!hit) return false;
    if (hit === el || el.contains(hit)) return true;
    // A styled checkbox or file input is often hidden under its label: the label's click reaches it.
    const label = hit.closest && hit.closest('label');
    return !!(label && label.control === el);
  }

  function onTop(el, box) {
    const points = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
    for (const [fx, fy] of points) {
      if (hitsElement(el, box.x + box.width * fx, box.y + box.height * fy)) return true;
    }
    return false;
  }

  function clean(s) {
    return String(s || '').replace(/\s+/g, ' ').trim();
  }

  function describe(el) {
    const tag = el.tagName.toLowerCase();
    let text = '';
    if (tag === 'input') {
      const type = (el.getAttribute('type') || 'text').toLowerCase();
      if (type === 'submit' || type === 'button' || type === 'reset') text = el.value;
      else if (type === 'checkbox' || type === 'radio') text = (el.labels && el.labels[0] && el.labels[0].innerText) || '';
      else if (type !== 'password') text = el.value || el.getAttribute('placeholder') || '';
    } else if (tag === 'textarea') {
      text = el.value || el.getAttribute('placeholder') || '';
    } else if (tag === 'select') {
      const o = el.options && el.options[el.selectedIndex];
      text = o ? o.text : '';
    } else {
      text = el.innerText || '';
    }
    text = clean(text);
    if (!text) {
      const img = el.querySelector && el.querySelector('img[alt]');
      text = clean(el.getAttribute('aria-label') || el.getAttribute('title') || (img && img.getAttribute('alt')) ||
        el.getAttribute('placeholder') || el.getAttribute('name') || '');
    }
    if (text.length > opts.maxText) text = text.slice(0, opts.maxText - 1) + '…';
    return { tag, text };
  }

  function* walk(root) {
    const stack = [root];
    while (stack.length) {
      const node = stack.pop();
      const kids = node.children;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
      if (node.shadowRoot) stack.push(node.shadowRoot);
      if (node.nodeType === 1) yield node;
    }
  }

  const candidates = [];
  for (const el of walk(document.body || document.documentElement)) {
    if (el.id === '__verdict_som_overlay') continue;
    const rect = el.getBoundingClientRect();
    if (rect.right <= 0 || rect.bottom <= 0 || rect.left >= vw || rect.top >= vh) continue;
    if (rect.width === 0 && rect.height === 0) continue;
    const style = getComputedStyle(el);
    const s = strength(el, style);
    if (s < 0) continue;
    if (style.visibility !== 'visible' || Number(style.opacity) === 0 || el.disabled) continue;
    const box = visibleBox(el);
    if (!box) continue;
    if (box.area < opts.minArea || box.width < opts.minSide || box.height < opts.minSide) continue;
    if (!onTop(el, box)) continue;
    candidates.push({ el, box, strength: s });
  }

  function overlap(a, b) {
    const x0 = Math.max(a.x, b.x), y0 = Math.max(a.y, b.y);
    const x1 = Math.min(a.x + a.width, b.x + b.width), y1 = Math.min(a.y + a.height, b.y + b.height);
    if (x1 <= x0 || y1 <= y0) return 0;
    const inter = (x1 - x0) * (y1 - y0);
    return inter / (a.area + b.area - inter);
  }

  const byElement = new Map(candidates.map((c) => [c.el, c]));
  const dropped = new Set();
  for (const c of candidates) {
    for (let p = c.el.parentElement || (c.el.getRootNode() && c.el.getRootNode().host); p; p = p.parentElement) {
      const outer = byElement.get(p);
      if (!outer || dropped.has(outer)) continue;
      if (c.strength <= 1 && outer.strength >= 2) { dropped.add(c); break; }
      if (overlap(c.box, outer.box) >= 0.8) {
        dropped.add(c.strength > outer.strength ? outer : c);
        break;
      }
    }
  }
  const kept = candidates.filter((c) => !dropped.has(c));

  // Reading order: rows top to bottom (boxes whose tops are within half the row's height share a row), then left to right.
  kept.sort((a, b) => a.box.y - b.box.y || a.box.x - b.box.x);
  const rows = [];
  for (const c of kept) {
    const row = rows[rows.length - 1];
    if (row && c.box.y - row.top < Math.max(6, row.height / 2)) {
      row.items.push(c);
      row.height = Math.min(row.height, c.box.height);
    } else {
      rows.push({ top: c.box.y, height: c.box.height, items: [c] });
    }
  }
  const ordered = rows.flatMap((r) => r.items.sort((a, b) => a.box.x - b.box.x));
  return ordered.map((c) => Object.assign({ x: c.box.x, y: c.box.y, width: c.box.width, height: c.box.height }, describe(c.el)));
}`;

/** Draws numbered boxes (CSS pixels, viewport-relative) in a fixed overlay that ignores the pointer. */
export const DRAW_SCRIPT = String.raw`(marks) => {
  const old = document.getElementById('__verdict_som_overlay');
  if (old) old.remove();
  const colors = ['#e6194b', '#1e7d32', '#1f4fd8', '#c2410c', '#7b2cbf', '#0e7490', '#b4236b', '#4d7c0f', '#9a3412', '#334155'];
  const overlay = document.createElement('div');
  overlay.id = '__verdict_som_overlay';
  overlay.setAttribute('aria-hidden', 'true');
  overlay.style.cssText = 'position:fixed;left:0;top:0;width:0;height:0;overflow:visible;pointer-events:none;z-index:2147483647;';
  const style = document.createElement('style');
  // Hide the text caret while screenshots are taken: a blinking caret makes two captures of one state differ.
  style.textContent = '*{caret-color:transparent !important}';
  overlay.appendChild(style);
  for (const m of marks) {
    const color = colors[Number(m.label) % colors.length];
    const box = document.createElement('div');
    box.style.cssText = 'position:fixed;box-sizing:border-box;border:2px solid ' + color + ';left:' + m.x + 'px;top:' + m.y +
      'px;width:' + m.width + 'px;height:' + m.height + 'px;';
    const tag = document.createElement('span');
    tag.textContent = m.label;
    const above = m.y >= 16;
    tag.style.cssText = 'position:absolute;left:-2px;' + (above ? 'top:-16px;' : 'top:-2px;') +
      'background:' + color + ';color:#fff;font:bold 11px/14px ui-monospace,Menlo,Consolas,monospace;padding:0 3px;' +
      'border-radius:2px;white-space:nowrap;';
    box.appendChild(tag);
    overlay.appendChild(box);
  }
  document.documentElement.appendChild(overlay);
  return marks.length;
}`;

/** Hides the caret only (no boxes): used while the raw screenshot is taken. */
export const HIDE_CARET_SCRIPT = String.raw`() => {
  let s = document.getElementById('__verdict_som_caret');
  if (!s) {
    s = document.createElement('style');
    s.id = '__verdict_som_caret';
    s.textContent = '*{caret-color:transparent !important}';
    document.documentElement.appendChild(s);
  }
  return true;
}`;

export const CLEAR_SCRIPT = String.raw`() => {
  for (const id of ['__verdict_som_overlay', '__verdict_som_caret']) {
    const el = document.getElementById(id);
    if (el) el.remove();
  }
  return true;
}`;
