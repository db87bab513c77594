// Latency of `litmus lsp` seen from a client on vscode-languageserver-protocol:
//   1. didChange → diagnostics on a 1,000-line file (typing; breaking and
//      fixing a statement), target p95 < 20 ms;
//   2. hover latency while a long check runs, beside hover on an idle server;
//   3. per example: time to the TSO diagnostics (robustness known) and to the
//      full check, beside `litmus check` on the same file.
// Usage: node bench/lsp-bench.mjs [edits|push]   (needs target/release/litmus or LITMUS_BIN;
//        `edits`: section 1 only, by push and by pull with the workspace
//        checked in the background; `push`: by push only, for servers without pull)
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import { pathToFileURL } from "node:url";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Client, examples, fileUri, litmusBin, percentile, root } from "../lib/lsp-client.mjs";

const fmt = (x) => x.toFixed(2);
const stats = (xs) => `p50 ${fmt(percentile(xs, 50))} ms, p95 ${fmt(percentile(xs, 95))} ms, max ${fmt(Math.max(...xs))} ms (n=${xs.length})`;

function bigFile(lines) {
  const out = ["litmus Big", "shared x = 0;", "shared y = 0;", "shared z = 0;"];
  let t = 0;
  while (out.length < lines - 2) {
    out.push(`thread T${t} {`);
    for (let i = 0; i < 46 && out.length < lines - 1; i++) {
      out.push(i % 3 === 0 ? `  x = ${i};` : i % 3 === 1 ? `  let r${i} = y;` : `  // step ${i} of thread ${t}`);
    }
    out.push("}");
    t++;
  }
  out.push("exists (x == 1);");
  return out.join("\n") + "\n";
}

async function timeEdit(c, uri, changes) {
  const t0 = performance.now();
  const v = c.change(uri, changes);
  await c.waitFor("diagnostics", (p) => p.uri === uri && p.version === v);
  return performance.now() - t0;
}

async function editLatency() {
  const c = await Client.start({ options: { debounceMs: 150 } });
  const uri = fileUri("big.litmus");
  let text = bigFile(1000);
  c.open(uri, text);
  await c.waitFor("diagnostics", (p) => p.uri === uri && p.version === 1);
  // Typing a comment at the end of line 500, one character per change.
  const typing = [];
  const line = 500;
  let col = text.split("\n")[line].length;
  for (const ch of "// a comment typed one key at a time, with é and 🙂 in it ".repeat(5)) {
    const pos = { line, character: col };
    typing.push(await timeEdit(c, uri, [{ range: { start: pos, end: pos }, text: ch }]));
    col += ch.length;
  }
  // Breaking a statement and fixing it again: the syntax error appears, then goes.
  const breakFix = [];
  const target = text.split("\n").findIndex((l) => l === "  x = 3;");
  for (let k = 0; k < 100; k++) {
    const pos = { line: target, character: 6 };
    const end = { line: target, character: 7 };
    breakFix.push(await timeEdit(c, uri, [{ range: { start: pos, end }, text: "" }]));
    breakFix.push(await timeEdit(c, uri, [{ range: { start: pos, end: pos }, text: "3" }]));
  }
  const errors = (c.diagnostics.get(uri)?.diagnostics ?? []).filter((d) => d.severity === 1).length;
  await c.stop();
  return { typing, breakFix, errors, lines: text.split("\n").length - 1 };
}

function slowProgram() {
  return fs.readFileSync(path.join(root, "tests/programs/slow.litmus"), "utf8");
}

async function hoverLatency() {
  const c = await Client.start({ options: { debounceMs: 0, timeout: 120 } });
  // On the `a` of `shared a = 0;`.
  const hover = async (uri, line) => {
    const t0 = performance.now();
    const h = await c.request("textDocument/hover", { textDocument: { uri }, position: { line, character: 7 } });
    if (!h.contents.value.includes("shared a = 0")) throw new Error("wrong hover");
    return performance.now() - t0;
  };
  const idleUri = fileUri("idle.litmus");
  const idleText = "litmus Idle\nshared a = 0;\nthread P0 {\n  a = 1;\n}\n";
  c.open(idleUri, idleText);
  await c.settled(idleUri, 1);
  const idle = [];
  for (let i = 0; i < 200; i++) idle.push(await hover(idleUri, 1));
  const uri = fileUri("slow.litmus");
  const slow = slowProgram();
  const line = slow.split("\n").indexOf("shared a = 0;");
  c.open(uri, slow);
  await c.waitFor("status", (p) => p.uri === uri && p.state === "checking");
  const busy = [];
  const t0 = performance.now();
  // Spread over ~2 s, while the workers explore on every core.
  for (let i = 0; i < 200; i++) {
    busy.push(await hover(uri, line));
    await new Promise((r) => setTimeout(r, 10));
  }
  const still = c.statuses.filter((p) => p.uri === uri).at(-1).state;
  const window = performance.now() - t0;
  await c.stop();
  return { idle, busy, still, window };
}

async function perExample() {
  const c = await Client.start({ options: { debounceMs: 0 } });
  const rows = [];
  const files = fs.readdirSync(examples).filter((f) => f.endsWith(".litmus")).sort();
  for (const [n, f] of files.entries()) {
    const text = fs.readFileSync(path.join(examples, f), "utf8");
    const uri = fileUri(`ex${n}-${f}`);
    const t0 = performance.now();
    c.open(uri, text);
    const first = await c.waitFor("status", (p) => p.uri === uri && ["violations", "checked", "analyzed", "failed"].includes(p.state));
    const tViolations = performance.now() - t0;
    const done = first.state === "checked" ? first : await c.waitFor("status", (p) => p.uri === uri && ["checked", "failed"].includes(p.state), 300000);
    const tChecked = performance.now() - t0;
    const diags = c.diagnostics.get(uri)?.diagnostics ?? [];
    const tso = diags.filter((d) => d.code === "sc-violation" && d.message.startsWith("TSO:")).length;
    const c0 = performance.now();
    spawnSync(litmusBin(), ["check", "--format", "json", path.join(examples, f)], { encoding: "utf8" });
    const tCli = performance.now() - c0;
    rows.push({ f, tViolations, tChecked, tCli, tso, state: done.state });
  }
  await c.stop();
  return rows;
}

// The same typing by a client that pulls (VS Code), in a workspace whose
// files on disk are checked in the background: each key is typed while a
// background check is running (it waits for one to start), so the time
// includes cancelling it. didChange → `textDocument/diagnostic` answered
// for the new text.
async function pullEditLatency() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "litmus-bench-ws-"));
  for (const f of fs.readdirSync(examples).filter((f) => f.endsWith(".litmus"))) {
    fs.copyFileSync(path.join(examples, f), path.join(dir, f));
  }
  for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(dir, `slow${i}.litmus`), slowProgram());
  const c = await Client.start({
    capabilities: { textDocument: { diagnostic: {} }, workspace: { diagnostics: { refreshSupport: true } } },
    // The 1,000-line file's own check times out; 1 s lets the background
    // start between keys (it runs only while no open file is checked).
    options: { debounceMs: 150, timeout: 1 },
    workspaceFolders: [{ uri: pathToFileURL(dir).href, name: "bench" }],
  });
  if (!c.init.capabilities.diagnosticProvider) throw new Error("no pull diagnostics");
  const uri = fileUri("big.litmus");
  const text = bigFile(1000);
  c.open(uri, text);
  const line = 500;
  let col = text.split("\n")[line].length;
  const typing = [];
  let busy = 0;
  for (const ch of "// typed during a background check é🙂") {
    // Wait (at most 10 s) for a background check to be running.
    const t = performance.now();
    while (performance.now() - t < 10000) {
      const s = await c.request("litmus/workspaceState", {});
      if (s.running) {
        busy++;
        break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const pos = { line, character: col };
    const t0 = performance.now();
    c.change(uri, [{ range: { start: pos, end: pos }, text: ch }]);
    const r = await c.request("textDocument/diagnostic", { textDocument: { uri } });
    typing.push(performance.now() - t0);
    if (r.kind !== "full") throw new Error(`expected a full report: ${JSON.stringify(r)}`);
    col += ch.length;
  }
  const state = await c.request("litmus/workspaceState", {});
  await c.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  return { typing, busy, state };
}

const edits = await editLatency();
console.log(`\n## didChange → diagnostics, ${edits.lines}-line file`);
console.log(`typing (one key per change): ${stats(edits.typing)}`);
console.log(`break/fix a statement:       ${stats(edits.breakFix)}`);
if (process.argv[2] !== "push") {
  const p = await pullEditLatency();
  console.log(`pull, background workspace check running: ${stats(p.typing)}`);
  console.log(`  (${p.busy} of ${p.typing.length} keys typed during a background check; ${p.state.cancelled} background checks cancelled)`);
}
if (process.argv[2] === "edits" || process.argv[2] === "push") process.exit(0);

const h = await hoverLatency();
console.log("\n## hover latency");
console.log(`idle server:                 ${stats(h.idle)}`);
console.log(`during a long check:         ${stats(h.busy)}  (check still '${h.still}' after ${fmt(h.window)} ms)`);

// The phases of a long check: violations, then harm and fences, then outcomes.
async function phases() {
  const c = await Client.start({ options: { debounceMs: 0, timeout: 300 } });
  const uri = fileUri("slow-phases.litmus");
  const t0 = performance.now();
  c.open(uri, slowProgram());
  const seen = [];
  await new Promise((resolve) => {
    c.on("status", (p) => {
      if (p.uri !== uri || !["violations", "checked", "failed"].includes(p.state)) return;
      seen.push([performance.now() - t0, p.state, p.message]);
      if (p.state !== "violations") resolve();
    });
  });
  await c.stop();
  return seen;
}
console.log("\n## a long check (tests/programs/slow.litmus): when each phase is published");
for (const [t, state, msg] of await phases()) console.log(`${(t / 1000).toFixed(2)} s  ${state}: ${msg}`);

const rows = await perExample();
console.log("\n## time to diagnostics per example (one server, files opened in turn)");
console.log("| example | TSO diagnostics | TSO violations | full check (all models) | `litmus check` CLI |");
console.log("|---|---:|---:|---:|---:|");
for (const r of rows) {
  console.log(`| ${r.f} | ${fmt(r.tViolations)} ms | ${r.tso} | ${fmt(r.tChecked)} ms | ${fmt(r.tCli)} ms |`);
}
const tv = rows.map((r) => r.tViolations);
console.log(`\nTSO diagnostics: ${stats(tv)}`);
