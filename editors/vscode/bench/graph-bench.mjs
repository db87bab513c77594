// Execution-graph latency: `litmus/executionGraph` request → SVG, on SB and
// the fenced 4-entry Dekker harness (shared/bench/harnesses/dekker_f_k4),
// after the check has settled (the request draws from the stored report).
import fs from "node:fs";
import path from "node:path";
import { Client, examples, fileUri, percentile, root } from "../lib/lsp-client.mjs";

const files = [
  ["sb.litmus", path.join(examples, "sb.litmus")],
  ["dekker_f_k4.litmus", path.join(root, "../shared/bench/harnesses/dekker_f_k4.litmus")],
];
const c = await Client.start({ options: { debounceMs: 0 } });
for (const [name, file] of files) {
  const uri = fileUri(name);
  c.open(uri, fs.readFileSync(file, "utf8"));
  await c.settled(uri, 1);
  const times = [];
  let bytes = 0;
  let count = 0;
  for (let i = 0; i < 200; i++) {
    const t = process.hrtime.bigint();
    const g = await c.request("litmus/executionGraph", { textDocument: { uri }, violation: 1 + (i % 2) });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    bytes = g.svg.length;
    count = g.violations;
  }
  console.log(
    `${name}: ${count} violations, svg ${bytes} bytes, request→svg p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms`,
  );
}
await c.stop();
