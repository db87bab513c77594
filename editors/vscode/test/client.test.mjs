// The server driven by a second real client (vscode-languageserver-protocol,
// as VS Code's): the store-buffering round trip, rapid incremental edits,
// and UTF-16 columns on non-ASCII text.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Client, applyEdits, asChanges, examples, fileUri, positionAt } from "../lib/lsp-client.mjs";

const clients = [];
async function client(opts) {
  const c = await Client.start(opts);
  clients.push(c);
  return c;
}
after(async () => Promise.all(clients.map((c) => c.stop())));

// A violation names the models it holds under: "TSO, PSO: `x = 1` may be …".
const tso = (diags) =>
  diags.filter((d) => d.code === "E0400" && /^[A-Z, ]*\bTSO\b[A-Z, ]*:/.test(d.message));
// The other statements of a violation's cycle: hints, same code.
const members = (diags) => diags.filter((d) => d.code === "E0400" && d.message.includes("part of the"));

test("store buffering: diagnostics, hover, one quick fix, then all fences", async () => {
  const c = await client();
  const uri = fileUri("sb.litmus");
  let text = fs.readFileSync(path.join(examples, "sb.litmus"), "utf8");
  c.open(uri, text);
  let diags = await c.settled(uri, 1);
  assert.deepEqual(tso(diags).map((d) => d.range.start.line), [7, 12], "a TSO violation on each thread");
  assert.equal(tso(diags)[0].severity, 1, "harmful: an error");
  assert.equal(tso(diags)[0].relatedInformation.length, 3, "the cycle's other statements");
  assert.match(tso(diags)[0].codeDescription.href, /^file:\/\/\/.*\/codes\.md#e0400$/);
  // Every statement of the cycle is marked: the stores by their findings,
  // the loads and P1's store (a member of the cycle from line 8) by their
  // role, as hints whose related information leads to the violation's store.
  const m = members(diags);
  assert.deepEqual(m.map((d) => d.range.start.line), [8, 12, 13]);
  assert.ok(m.every((d) => d.severity === 4 && d.relatedInformation.some((r) => r.location.range.start.line === 7)), JSON.stringify(m));
  assert.equal(m[0].message, "reads y before P1's `y = 1` overwrites it — part of the TSO/PSO cycle of line 8");

  const hover = await c.request("textDocument/hover", { textDocument: { uri }, position: { line: 7, character: 3 } });
  assert.match(hover.contents.value, /\*\*TSO\/PSO cycle\*\*/);
  // Each statement a link to its line.
  assert.match(hover.contents.value, /② \[P0 line 9\]\(file:\/\/\/work\/sb\.litmus#L9\): `let r0 = y` —fr→/);

  const [p0] = tso(diags);
  const fixes = await c.request("textDocument/codeAction", {
    textDocument: { uri },
    range: p0.range,
    context: { diagnostics: [p0], only: ["quickfix"] },
  });
  assert.equal(fixes.length, 1);
  assert.equal(fixes[0].title, "Insert `fence wr` after line 8");
  // Send the fix the way an editor does: as incremental changes.
  const edits = fixes[0].edit.changes[uri];
  text = applyEdits(text, edits);
  let v = c.change(uri, asChanges(edits));
  diags = await c.settled(uri, v);
  assert.deepEqual(tso(diags).map((d) => d.range.start.line), [13], "P0's violation is gone; P1's stays");

  const all = await c.request("textDocument/codeAction", {
    textDocument: { uri },
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: [], only: ["source.litmus.insertFences"] },
  });
  assert.equal(all.length, 1);
  assert.match(all[0].title, /^Insert all minimal fences/);
  const allEdits = all[0].edit.changes[uri];
  text = applyEdits(text, allEdits);
  v = c.change(uri, asChanges(allEdits));
  diags = await c.settled(uri, v);
  assert.deepEqual(tso(diags), []);
  assert.deepEqual(members(diags), [], "no cycle, no members");
  assert.equal(await c.request("litmus/documentText", { uri }), text);
});

function xorshift(seed) {
  let s = BigInt(seed);
  return (n) => {
    s ^= (s << 13n) & 0xffffffffffffffffn;
    s ^= s >> 7n;
    s ^= (s << 17n) & 0xffffffffffffffffn;
    return Number(s % BigInt(Math.max(n, 1)));
  };
}

test("200 rapid incremental edits: same text and diagnostics as a fresh open", async () => {
  const c = await client({ options: { debounceMs: 150 } });
  const uri = fileUri("edited.litmus");
  let text = fs.readFileSync(path.join(examples, "dekker.litmus"), "utf8");
  c.open(uri, text);
  const rand = xorshift(20261122);
  const pieces = ["x", " ", ";", "\n", "é", "🙂", "1", "let r9 = y;", "}", "\r\n", "", "fence wr;"];
  // Code-point boundaries not inside a \r\n pair (no editor puts a cursor there).
  const bounds = (t) => {
    const out = [];
    for (let i = 0; i <= t.length; i++) {
      const lowSurrogate = i < t.length && t.charCodeAt(i) >= 0xdc00 && t.charCodeAt(i) <= 0xdfff;
      if (!lowSurrogate && !(t[i - 1] === "\r" && t[i] === "\n")) out.push(i);
    }
    return out;
  };
  let v = 1;
  for (let k = 0; k < 200; k++) {
    const b = bounds(text);
    const i = rand(b.length);
    const j = Math.min(i + rand(4), b.length - 1);
    const ins = pieces[rand(pieces.length)];
    const range = { start: positionAt(text, b[i]), end: positionAt(text, b[j]) };
    v = c.change(uri, [{ range, text: ins }]);
    text = text.slice(0, b[i]) + ins + text.slice(b[j]);
  }
  const diags = await c.settled(uri, v);
  assert.equal(await c.request("litmus/documentText", { uri }), text, "no edit lost or misplaced");
  const versions = c.publications.filter((p) => p.uri === uri).map((p) => p.version);
  assert.deepEqual(versions, [...versions].sort((a, b) => a - b), "nothing stale published late");
  const fresh = fileUri("fresh.litmus");
  c.open(fresh, text);
  const freshDiags = await c.settled(fresh, 1);
  const norm = (ds) => JSON.stringify(ds).replaceAll(fresh, uri);
  assert.equal(norm(diags), norm(freshDiags));
});

test("non-ASCII text: diagnostics at UTF-16 columns", async () => {
  const c = await client();
  const uri = fileUri("unicode.litmus");
  const text =
    'litmus Unicode "é 🙂 naïve"\n// é 🙂 comment\nshared x = 0;\nthread P0 {\n  /* 🙂🙂 é */ x = 1; /* 🙂 */ let r = zz;\n}\n';
  c.open(uri, text);
  const diags = await c.settled(uri, 1);
  const unknown = diags.find((d) => d.message.includes("zz"));
  assert.ok(unknown, JSON.stringify(diags));
  const line = text.split("\n")[4];
  // A JS string index is a UTF-16 offset: this is the column LSP expects.
  assert.deepEqual(unknown.range.start, { line: 4, character: line.indexOf("zz") });
  assert.equal(line.indexOf("zz"), 39, "UTF-16 units (the UTF-8 byte column would be 46)");
  assert.deepEqual(unknown.range.end, { line: 4, character: line.indexOf("zz") + 2 });
  // A position after the emoji maps back to the right name.
  const hover = await c.request("textDocument/hover", { textDocument: { uri }, position: { line: 4, character: line.indexOf("x = 1") } });
  assert.match(hover.contents.value, /shared x = 0/);
});

test("execution graph: the Show execution lens, then litmus/executionGraph's SVG", async () => {
  // As VS Code does: the client implements litmus.showExecution (its webview).
  const c = await client({ options: { clientCommands: ["litmus.showExecution"] } });
  const uri = fileUri("mp.litmus");
  c.open(uri, fs.readFileSync(path.join(examples, "mp.litmus"), "utf8"));
  await c.settled(uri, 1);
  const lenses = await c.request("textDocument/codeLens", { textDocument: { uri } });
  const shows = lenses.filter((l) => l.command.command === "litmus.showExecution");
  assert.equal(shows.length, 1, "MP: one violation, under PSO");
  assert.equal(shows[0].command.title, "Show execution (PSO): past `y = 1`");
  assert.deepEqual(shows[0].command.arguments, [uri, 1]);
  // A client that does not list it gets the server's own command instead.
  const plain = await client();
  plain.open(uri, fs.readFileSync(path.join(examples, "mp.litmus"), "utf8"));
  await plain.settled(uri, 1);
  // (The header's lens runs the server's explain for every client.)
  const theirs = (await plain.request("textDocument/codeLens", { textDocument: { uri } })).filter((l) =>
    l.command.title.startsWith("Show execution"),
  );
  assert.deepEqual(theirs.map((l) => l.command.command), ["litmus.server.showExecution"]);
  const g = await c.request("litmus/executionGraph", { textDocument: { uri }, violation: 1 });
  assert.equal(g.model, "PSO");
  assert.equal(g.violations, 1);
  assert.equal((g.svg.match(/<g class="event /g) ?? []).length, 4, "W x, W y, R y, R x");
  assert.match(g.svg, /data-line="12"/);
  await assert.rejects(c.request("litmus/executionGraph", { textDocument: { uri }, violation: 2 }), /there is no violation 2/);
});

// A client that pulls, as VS Code's does: the same findings by
// `textDocument/diagnostic` after the check, `unchanged` on a repeat, a
// refresh request after the phases, and nothing pushed.
test("pull diagnostics: the same findings by pull, none pushed", async () => {
  const c = await client({
    capabilities: { textDocument: { diagnostic: {} }, workspace: { diagnostics: { refreshSupport: true } } },
  });
  assert.equal(c.init.capabilities.diagnosticProvider.workspaceDiagnostics, true);
  const uri = fileUri("sb-pull.litmus");
  c.open(uri, fs.readFileSync(path.join(examples, "sb.litmus"), "utf8"));
  await c.settled(uri, 1);
  const r = await c.request("textDocument/diagnostic", { textDocument: { uri } });
  assert.equal(r.kind, "full");
  assert.deepEqual(tso(r.items).map((d) => d.range.start.line), [7, 12]);
  assert.deepEqual(members(r.items).map((d) => d.range.start.line), [8, 12, 13]);
  const again = await c.request("textDocument/diagnostic", { textDocument: { uri }, previousResultId: r.resultId });
  assert.deepEqual(again, { kind: "unchanged", resultId: r.resultId });
  assert.ok(c.serverRequests.includes("workspace/diagnostic/refresh"));
  assert.equal(c.publications.filter((p) => p.uri === uri).length, 0, "nothing pushed to a pull client");
});
