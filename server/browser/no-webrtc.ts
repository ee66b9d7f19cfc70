/**
 * WebRTC taken out of every page an agent's browser opens. A peer connection's STUN and TURN traffic goes over UDP
 * straight from the browser, around the egress proxy that holds every other connection of a run to its address
 * policy; Chromium's IP-handling flags do not stop it (security review 2, N3). Agents have no use for it. This is
 * the browser's layer; the kernel's (the browser user's network rules, scripts/browser-user.sh) is the one that
 * holds when a page finds a frame this script has not reached yet.
 */

/** The constructors a page could reach WebRTC's network through, as window properties. */
export const WEBRTC_GLOBALS = [
  "RTCPeerConnection",
  "webkitRTCPeerConnection",
  "RTCDataChannel",
  "RTCIceTransport",
  "RTCSctpTransport",
  "RTCDtlsTransport",
] as const;

/** Runs in every frame before the page's own scripts (BrowserContext.addInitScript). */
export const NO_WEBRTC_INIT_SCRIPT = `(() => {
  for (const name of ${JSON.stringify(WEBRTC_GLOBALS)}) {
    try {
      Object.defineProperty(globalThis, name, { value: undefined, writable: false, configurable: false, enumerable: false });
    } catch {}
  }
})();`;
