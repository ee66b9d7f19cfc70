/**
 * An attacker of its own (a process apart from the test that measures the server, so its sending does not slow the
 * measurement): POSTs `count` bodies of `mb` × 1 MB at once to `url`, without a Content-Length (no declared size can
 * refuse them early), and prints one JSON line with each answer's status (0: the connection was closed before an
 * answer arrived) and the first answer's body.
 *
 *   node --import tsx tests/helpers/body-flood-child.ts <url> <count> <mb>
 */
import http from "node:http";

const [url, count, mb] = [process.argv[2]!, Number(process.argv[3]), Number(process.argv[4])];
const chunk = Buffer.alloc(1024 * 1024, 0x61);

function post(): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    let answered = false;
    const req = http.request(url, { method: "POST", agent: false, headers: { "Content-Type": "application/json", "Transfer-Encoding": "chunked" } }, (res) => {
      answered = true;
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", () => {
      if (!answered) resolve({ status: 0, body: "" });
    });
    void (async () => {
      for (let i = 0; i < mb && !req.destroyed; i++) {
        if (!req.write(chunk)) await new Promise((r) => req.once("drain", r).once("close", r));
      }
      if (!req.destroyed) req.end();
    })();
  });
}

const answers = await Promise.all(Array.from({ length: count }, post));
process.stdout.write(JSON.stringify({ statuses: answers.map((a) => a.status), body: answers.find((a) => a.body)?.body ?? "" }) + "\n");
