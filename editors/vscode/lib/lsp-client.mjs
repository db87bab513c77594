// A minimal LSP client on vscode-languageserver-protocol (what VS Code's
// client is built on), for the end-to-end tests and the benchmarks: spawns
// `litmus lsp`, answers the server's requests, records what it publishes.
import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import path from "node:path";
import { fileURLToPath } from "node:url";
import rpc from "vscode-languageserver-protocol/node.js";

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "../../..");
export const examples = path.join(root, "examples");

export function litmusBin() {
  return process.env.LITMUS_BIN ?? path.join(root, "target/release/litmus");
}

export function fileUri(name) {
  return `file:///work/${name}`;
}

export class Client extends EventEmitter {
  static async start({ capabilities = {}, options = {}, workspaceFolders = null } = {}) {
    const c = new Client();
    c.proc = spawn(litmusBin(), ["lsp"], { stdio: ["pipe", "pipe", "inherit"] });
    c.conn = rpc.createProtocolConnection(
      new rpc.StreamMessageReader(c.proc.stdout),
      new rpc.StreamMessageWriter(c.proc.stdin),
    );
    c.diagnostics = new Map(); // uri -> last PublishDiagnosticsParams
    c.publications = []; // every PublishDiagnosticsParams, in order
    c.statuses = []; // every litmus/status
    c.serverRequests = [];
    c.conn.onRequest((method) => {
      c.serverRequests.push(method);
      return null;
    });
    c.conn.onNotification("textDocument/publishDiagnostics", (p) => {
      c.diagnostics.set(p.uri, p);
      c.publications.push(p);
      c.emit("diagnostics", p);
    });
    c.conn.onNotification("litmus/status", (p) => {
      c.statuses.push(p);
      c.emit("status", p);
    });
    c.conn.onNotification(() => {});
    c.conn.listen();
    const caps = {
      window: { workDoneProgress: true },
      general: { positionEncodings: ["utf-16"] },
      textDocument: { publishDiagnostics: { relatedInformation: true, versionSupport: true } },
      ...capabilities,
    };
    c.init = await c.conn.sendRequest("initialize", {
      processId: process.pid,
      rootUri: null,
      workspaceFolders,
      capabilities: caps,
      initializationOptions: { testHooks: true, debounceMs: 0, ...options },
    });
    c.conn.sendNotification("initialized", {});
    c.versions = new Map();
    return c;
  }

  request(method, params) {
    return this.conn.sendRequest(method, params);
  }

  open(uri, text) {
    this.versions.set(uri, 1);
    this.conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "litmus", version: 1, text } });
    return 1;
  }

  /** Send content changes; returns the new version. */
  change(uri, contentChanges) {
    const version = this.versions.get(uri) + 1;
    this.versions.set(uri, version);
    this.conn.sendNotification("textDocument/didChange", { textDocument: { uri, version }, contentChanges });
    return version;
  }

  /** Resolves with the first event of `kind` satisfying `pred` (past or future). */
  waitFor(kind, pred, timeoutMs = 60000) {
    const past = kind === "status" ? this.statuses : this.publications;
    const hit = past.find(pred);
    if (hit) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.off(kind, on);
        reject(new Error(`timed out waiting for ${kind}`));
      }, timeoutMs);
      const on = (p) => {
        if (pred(p)) {
          clearTimeout(timer);
          this.off(kind, on);
          resolve(p);
        }
      };
      this.on(kind, on);
    });
  }

  /** Wait for the check of `version` to end; the diagnostics published last for it. */
  async settled(uri, version, states = ["checked", "analyzed"]) {
    const s = await this.waitFor("status", (p) => p.uri === uri && p.version === version && (states.includes(p.state) || p.state === "failed"));
    if (s.state === "failed") throw new Error(`check failed: ${s.message}`);
    const pubs = this.publications.filter((p) => p.uri === uri && p.version === version);
    return pubs.length ? pubs[pubs.length - 1].diagnostics : [];
  }

  async stop() {
    // A server that never answers `shutdown` must not keep the test process
    // alive: give it 5 s, then kill it anyway.
    let timer;
    const late = new Promise((resolve) => (timer = setTimeout(resolve, 5000)));
    try {
      await Promise.race([this.request("shutdown", null).then(() => this.conn.sendNotification("exit")), late]);
    } catch {}
    clearTimeout(timer);
    this.conn.dispose();
    this.proc.kill();
  }
}

/** LSP line starts: `\n`, `\r\n` and a lone `\r` end a line. */
function lineStarts(text) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n" || (c === "\r" && text[i + 1] !== "\n")) starts.push(i + 1);
  }
  return starts;
}

/** JS strings are UTF-16, so an LSP UTF-16 position is a string index. */
export function offsetAt(text, pos) {
  const starts = lineStarts(text);
  if (pos.line >= starts.length) return text.length;
  const start = starts[pos.line];
  let end = pos.line + 1 < starts.length ? starts[pos.line + 1] : text.length;
  while (end > start && (text[end - 1] === "\n" || text[end - 1] === "\r")) end--;
  return Math.min(start + pos.character, end);
}

export function positionAt(text, offset) {
  const starts = lineStarts(text);
  let line = 0;
  while (line + 1 < starts.length && starts[line + 1] <= offset) line++;
  return { line, character: offset - starts[line] };
}

export function applyEdits(text, edits) {
  const spans = edits
    .map((e) => [offsetAt(text, e.range.start), offsetAt(text, e.range.end), e.newText])
    .sort((a, b) => b[0] - a[0] || b[1] - a[1]);
  for (const [a, b, t] of spans) text = text.slice(0, a) + t + text.slice(b);
  return text;
}

/** A WorkspaceEdit's edits for one document, as incremental content changes
 * in the order an editor would send them (last first, so ranges stay valid). */
export function asChanges(edits) {
  return [...edits]
    .sort((a, b) => b.range.start.line - a.range.start.line || b.range.start.character - a.range.start.character)
    .map((e) => ({ range: e.range, text: e.newText }));
}

export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}
