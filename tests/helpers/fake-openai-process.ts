/**
 * Runs the fake OpenAI-compatible server as its own process, the way a real endpoint runs apart from Verdict:
 *   node --import tsx tests/helpers/fake-openai-process.ts [--delay-ms 500]
 * Prints one JSON line {"baseUrl": …} on stdout once listening; every call answers a SUCCESS verdict after the
 * delay. Stops on SIGTERM or when stdin closes.
 */
import { startFakeOpenAI } from "./fake-openai";

const at = process.argv.indexOf("--delay-ms");
const delayMs = at > 0 ? Number(process.argv[at + 1]) : 0;
const fake = await startFakeOpenAI({ responder: () => ({ reply: "Reasoning: fine.\nVerdict: SUCCESS", delayMs }) });
process.stdout.write(JSON.stringify({ baseUrl: fake.baseUrl }) + "\n");
const stop = () => void fake.close().then(() => process.exit(0));
process.on("SIGTERM", stop);
process.stdin.on("end", stop);
process.stdin.resume();
