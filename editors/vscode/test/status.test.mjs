// The status bar's logic (src/status.ts) and the server lookup
// (src/server-path.ts), bundled with esbuild and run in Node: what the item
// says for each `litmus/status`, that it follows the active document (a
// per-URI store; a document that is not litmus hides it), what a click
// offers, and that a missing server is found missing before the client
// starts. Then the manifest: one "Litmus" category, and the README's
// settings defaults equal to package.json's.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildSync } from "esbuild";

const here = path.dirname(new URL(import.meta.url).pathname);
const ext = path.join(here, "..");
const repo = path.join(ext, "..", "..");
let S;
let P;

async function load(file) {
  const out = buildSync({ entryPoints: [path.join(ext, "src", file)], bundle: true, format: "esm", platform: "node", write: false });
  return import("data:text/javascript;base64," + Buffer.from(out.outputFiles[0].text).toString("base64"));
}

before(async () => {
  S = await load("status.ts");
  P = await load("server-path.ts");
});

const uri = (name) => `file:///w/${name}`;
const status = (over) => ({ uri: uri("a.litmus"), version: 1, state: "checked", message: "checked", ...over });

test("the text and icon follow the counts: an error is never a check mark", () => {
  const sb = status({ errors: 2, warnings: 1, headline: "2 harmful violations", message: "SB: 2 SC violations (TSO, PSO)" });
  assert.equal(S.statusView(sb).text, "$(error) litmus: 2 harmful violations");
  assert.match(S.statusView(sb).tooltip, /^SB: 2 SC violations \(TSO, PSO\)\n2 errors, 1 warning\n/);
  assert.equal(S.statusView(sb).command, "litmus.statusActions");
  assert.equal(S.statusView(sb).background, undefined);
  // The spinlock: the condition fails under SC.
  assert.equal(S.statusView(status({ errors: 1, warnings: 0, headline: "condition fails under SC" })).text, "$(error) litmus: condition fails under SC");
  assert.equal(S.statusView(status({ errors: 0, warnings: 2, headline: "2 benign violations" })).text, "$(warning) litmus: 2 benign violations");
  assert.equal(S.statusView(status({ errors: 0, warnings: 0, headline: "robust (proved)" })).text, "$(check) litmus: robust (proved)");
  assert.equal(S.statusView(status({ errors: 0, warnings: 0, incomplete: true, headline: "robust (unknown)" })).text, "$(warning) litmus: robust (unknown)");
  assert.equal(S.statusView(status({ state: "checking", errors: 0, warnings: 0, headline: "checking…" })).text, "$(sync~spin) litmus: checking…");
  assert.equal(S.statusView(status({ state: "violations", errors: 0, warnings: 2, headline: "2 violations (judging harm)" })).text, "$(sync~spin) litmus: 2 violations (judging harm)");
  assert.equal(S.statusView(status({ state: "analyzed", errors: 3, warnings: 0, headline: "3 errors — not checked" })).text, "$(error) litmus: 3 errors — not checked");
  const failed = S.statusView(status({ state: "failed", errors: 0, warnings: 0, message: "the checker panicked" }));
  assert.equal(failed.text, "$(warning) litmus: check failed");
  assert.equal(failed.background, "statusBarItem.warningBackground");
  // Whatever the state and the words, errors show as errors once the check stopped.
  for (const state of ["analyzed", "checked", "failed"]) {
    for (const errors of [1, 2, 40]) {
      for (const incomplete of [false, true]) {
        const v = S.statusView(status({ state, errors, warnings: 0, incomplete, headline: "robust (proved)" }));
        assert.ok(!v.text.includes("$(check)") && v.text.startsWith("$(error)"), `${state} ${errors} ${incomplete}: ${v.text}`);
      }
    }
  }
});

test("without a headline: the counts in words; an older server without counts keeps its icons", () => {
  assert.equal(S.statusView(status({ errors: 2, warnings: 1 })).text, "$(error) litmus: 2 errors, 1 warning");
  assert.equal(S.statusView(status({ errors: 0, warnings: 0 })).text, "$(check) litmus: no problems");
  assert.equal(S.statusView(status({ state: "analyzed", errors: 1, warnings: 0 })).text, "$(error) litmus: 1 error — not checked");
  assert.equal(S.statusView(status({ state: "checking", errors: 0 })).text, "$(sync~spin) litmus: checking…");
  assert.equal(S.icon(status({ state: "analyzed" })), "$(error)");
  assert.equal(S.icon(status({ incomplete: true })), "$(warning)");
  assert.equal(S.statusView(status({})).text, "$(check) litmus", "no counts: no claim of no problems");
  // Such a server's status takes the counts from the diagnostics the editor holds.
  const store = new S.StatusStore();
  store.update(status({ message: "SB: 2 SC violations" }));
  const doc = { uri: uri("a.litmus"), languageId: "litmus" };
  assert.equal(S.viewFor(doc, store, { kind: "running" }, { errors: 2, warnings: 1 }).text, "$(error) litmus: 2 errors, 1 warning");
  assert.equal(S.viewFor(doc, store, { kind: "running" }, { errors: 0, warnings: 0 }).text, "$(check) litmus: no problems");
  store.update(status({ version: 2, errors: 0, warnings: 0, headline: "robust (proved)" }));
  assert.equal(S.viewFor(doc, store, { kind: "running" }, { errors: 5, warnings: 0 }).text, "$(check) litmus: robust (proved)", "the server's counts win");
  // A long headline is clipped, not the status bar.
  const long = S.statusView(status({ errors: 1, headline: "x".repeat(200) })).text;
  assert.ok(long.length < 90 && long.endsWith("…"), long);
});

test("the status follows the active document: one store entry per URI, hidden for other languages", () => {
  const store = new S.StatusStore();
  const running = { kind: "running" };
  const a = { uri: uri("a.litmus"), languageId: "litmus" };
  const b = { uri: uri("b.litmus"), languageId: "litmus" };
  const txt = { uri: uri("notes.txt"), languageId: "plaintext" };
  assert.ok(store.update(status({ uri: a.uri, version: 3, errors: 4, warnings: 0, state: "analyzed", headline: "4 errors — not checked" })));
  assert.ok(store.update(status({ uri: b.uri, version: 1, errors: 0, warnings: 0, headline: "robust (proved)" })));
  assert.equal(S.viewFor(a, store, running).text, "$(error) litmus: 4 errors — not checked");
  assert.equal(S.viewFor(b, store, running).text, "$(check) litmus: robust (proved)");
  // The issue: a .txt file showed the previous file's "4 errors — not checked".
  assert.equal(S.viewFor(txt, store, running), undefined);
  assert.equal(S.viewFor(a, store, running).text, "$(error) litmus: 4 errors — not checked", "switching back shows a's again");
  // A late status of an older version does not overwrite a newer one.
  assert.equal(store.update(status({ uri: a.uri, version: 2, errors: 0, warnings: 0, headline: "robust (proved)" })), false);
  assert.equal(S.viewFor(a, store, running).text, "$(error) litmus: 4 errors — not checked");
  assert.ok(store.update(status({ uri: a.uri, version: 3, state: "checking", errors: 4, headline: "checking…" })), "the same version's later phase");
  // A litmus document with no status yet waits (never another file's state).
  const c = { uri: uri("c.litmus"), languageId: "litmus" };
  assert.equal(S.viewFor(c, store, running).text, "$(sync~spin) litmus");
  assert.match(S.viewFor(c, store, { kind: "starting" }).tooltip, /Starting/);
  store.forget(a.uri);
  assert.equal(S.viewFor(a, store, running).text, "$(sync~spin) litmus", "closed: its next open starts afresh");
  store.clear();
  assert.equal(store.size, 0);
});

test("a server that failed to start: error colours on litmus documents, a click that opens the setting", () => {
  const store = new S.StatusStore();
  store.update(status({ errors: 0, warnings: 0 }));
  const failed = { kind: "failed", reason: "litmus: `litmus` is not on PATH", notFound: true, command: "litmus" };
  const v = S.viewFor({ uri: uri("a.litmus"), languageId: "litmus" }, store, failed);
  assert.equal(v.text, "$(error) litmus: server not found");
  assert.equal(v.background, "statusBarItem.errorBackground");
  assert.equal(v.command, "litmus.openServerSetting");
  assert.match(v.tooltip, /not on PATH/);
  assert.equal(S.viewFor({ uri: uri("n.txt"), languageId: "plaintext" }, store, failed), undefined);
  assert.equal(S.serverFailedView({ ...failed, notFound: false }).text, "$(error) litmus: server not started");
  assert.deepEqual(
    S.actions(failed).map((a) => a.command),
    ["litmus.openServerSetting", "litmus.installInstructions", "litmus.restartServer", "litmus.showOutput"],
  );
});

test("a click offers the actions", () => {
  const labels = S.actions({ kind: "running" }).map((a) => a.label.replace(/^\$\([\w-]+\) /, ""));
  assert.deepEqual(labels, [
    "Show problems",
    "Show execution",
    "Explain violation",
    "Insert all fences",
    "Re-check",
    "Restart server",
    "Show output",
  ]);
});

test("the server executable is looked up before the client starts", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "litmus-path-"));
  const bin = path.join(dir, "litmus");
  fs.writeFileSync(bin, "#!/bin/sh\n", { mode: 0o755 });
  const plain = path.join(dir, "plain");
  fs.writeFileSync(plain, "not executable", { mode: 0o644 });
  const env = { PATH: `/nonexistent:${dir}` };
  assert.deepEqual(P.resolveServer("litmus", { env, platform: "linux" }), { command: bin, found: true, lookedIn: "PATH" });
  assert.deepEqual(P.resolveServer("", { env, platform: "linux" }), { command: bin, found: true, lookedIn: "PATH" }, "empty: litmus");
  assert.equal(P.resolveServer("litmus", { env: { PATH: "/nonexistent" }, platform: "linux" }).found, false);
  assert.equal(P.resolveServer("plain", { env, platform: "linux" }).found, false, "not executable");
  assert.deepEqual(P.resolveServer("./litmus", { env: {}, cwd: dir, platform: "linux" }), { command: bin, found: true, lookedIn: bin });
  assert.equal(P.resolveServer("~/litmus", { env: {}, home: dir, platform: "linux" }).command, bin);
  const missing = P.resolveServer("/opt/nowhere/litmus", { env, platform: "linux" });
  assert.equal(missing.found, false);
  const msg = P.notFoundMessage(missing);
  assert.match(msg, /^litmus: the language server was not found: `\/opt\/nowhere\/litmus` does not exist or is not executable\./);
  assert.match(msg, /litmus\.server\.path/);
  assert.match(P.notFoundMessage(P.resolveServer("litmus", { env: {}, platform: "linux" })), /`litmus` is not on PATH/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("package.json: every command under the one category Litmus, none in the server's namespace", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ext, "package.json"), "utf8"));
  const cmds = pkg.contributes.commands;
  const sources = fs.readdirSync(path.join(ext, "src")).map((f) => fs.readFileSync(path.join(ext, "src", f), "utf8")).join("\n");
  for (const c of cmds) {
    assert.equal(c.category, "Litmus", c.command);
    assert.doesNotMatch(c.title, /^litmus\b/i, `${c.command}: no repeated prefix`);
    // vscode-languageclient registers the server's commands under these ids.
    assert.ok(!c.command.startsWith("litmus.server."), c.command);
    assert.ok(sources.includes(`"${c.command}"`), `${c.command} is registered`);
  }
  for (const want of ["litmus.showExecution", "litmus.explain", "litmus.insertAllFences", "litmus.recheck", "litmus.restartServer", "litmus.showOutput"]) {
    assert.ok(cmds.some((c) => c.command === want), want);
  }
  const ids = new Set(cmds.map((c) => c.command));
  for (const a of S.actions({ kind: "running" })) {
    assert.ok(!a.command.startsWith("litmus.") || ids.has(a.command), `${a.command} is contributed`);
  }
});

test("the READMEs give litmus.models the extension's default", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ext, "package.json"), "utf8"));
  const want = JSON.stringify(pkg.contributes.configuration.properties["litmus.models"].default);
  const norm = (s) => JSON.stringify(JSON.parse(s));
  const top = fs.readFileSync(path.join(repo, "README.md"), "utf8");
  const m = /`litmus\.models`\s*\(default\s+`([^`]*)`/.exec(top);
  assert.ok(m, "README.md names litmus.models' default");
  assert.equal(norm(m[1]), want);
  const own = fs.readFileSync(path.join(ext, "README.md"), "utf8");
  const row = /\|\s*`litmus\.models`\s*\|\s*`([^`]*)`/.exec(own);
  assert.ok(row, "editors/vscode/README.md's settings table has litmus.models");
  assert.equal(norm(row[1]), want);
});
