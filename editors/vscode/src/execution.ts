// "Litmus: Show execution" (command `litmus.showExecution`, also run by the
// server's "Show execution" lenses with [uri, which]: a violation's number,
// "condition" for the SC interleaving that breaks the final condition, or
// "failure:N" for a failing statement's witness): asks the server for
// `litmus/executionGraph` and shows the SVG in a webview beside the source;
// clicking an event reveals its statement, the page's toggle asks for the
// whole execution, and the cursor's line is outlined in the picture.
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { executionHtml, PageMessage, RevealMessage } from "./webview";
import { asWhich, describeWhich, Which } from "./which";

interface GraphResult {
  svg: string;
  title: string;
  model: string;
  violations: number;
  whole?: boolean;
}

interface Lens {
  range: { start: { line: number } };
  command?: { title: string; command: string; arguments?: unknown[] };
}

let panel: vscode.WebviewPanel | undefined;
let shownFor: vscode.Uri | undefined;
let shownViolation: Which | undefined;
let outdated = false;
/** The user asked for whole executions (the page's toggle); kept across pictures. */
let wantWhole = false;
let clientOf: (() => LanguageClient | undefined) | undefined;

function nonce(): string {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from({ length: 32 }, () => chars[Math.floor(Math.random() * chars.length)]).join("");
}

/** The document's violations, from its "Show execution" lenses. */
export async function violationLenses(
  client: LanguageClient,
  uri: vscode.Uri,
): Promise<{ label: string; n: Which; line: number }[]> {
  const lenses: Lens[] = (await client.sendRequest("textDocument/codeLens", { textDocument: { uri: uri.toString() } })) ?? [];
  const out: { label: string; n: Which; line: number }[] = [];
  for (const l of lenses) {
    if (l.command?.command !== "litmus.showExecution" && l.command?.command !== "litmus.server.showExecution") continue;
    const n = asWhich(l.command.arguments?.[1]);
    if (n === undefined) continue;
    out.push({ label: `${l.command.title} — line ${l.range.start.line + 1}`, n, line: l.range.start.line });
  }
  return out;
}

/** Without arguments: the active document's violations, picked from its lenses. */
async function pick(client: LanguageClient, uri: vscode.Uri): Promise<Which | undefined> {
  const items = await violationLenses(client, uri);
  if (items.length === 0) {
    void vscode.window.showInformationMessage("litmus: no SC violation to show (yet) in this file.");
    return undefined;
  }
  if (items.length === 1) {
    return items[0].n;
  }
  return (await vscode.window.showQuickPick(items, { placeHolder: "Which violation's execution?" }))?.n;
}

async function request(client: LanguageClient, uri: vscode.Uri, n: Which): Promise<GraphResult> {
  return client.sendRequest("litmus/executionGraph", { textDocument: { uri: uri.toString() }, violation: n, whole: wantWhole });
}

/** The page's toggle: draw the shown violation again, whole or up to its cycle. */
async function toggleWhole(on: boolean): Promise<void> {
  wantWhole = on;
  const client = clientOf?.();
  if (!client || !shownFor || shownViolation === undefined || outdated) {
    return;
  }
  try {
    show(shownFor, shownViolation, await request(client, shownFor, shownViolation));
  } catch (e) {
    void vscode.window.showErrorMessage(`litmus: no execution to show: ${(e as Error).message ?? e}`);
  }
}

/** Outline the events of the cursor's line, when the picture is of that document. */
function postCursor(editor: vscode.TextEditor | undefined): void {
  if (panel && shownFor && editor && editor.document.uri.toString() === shownFor.toString()) {
    void panel.webview.postMessage({ type: "cursor", line: editor.selection.active.line + 1 });
  }
}

async function reveal(m: RevealMessage): Promise<void> {
  if (!shownFor || m.type !== "reveal" || !(m.line >= 1)) {
    return;
  }
  const doc = await vscode.workspace.openTextDocument(shownFor);
  const text = doc.lineAt(Math.min(m.line - 1, doc.lineCount - 1)).text;
  // The server's columns count characters; VS Code's count UTF-16 units.
  const character = [...text].slice(0, Math.max(0, m.col - 1)).join("").length;
  const pos = new vscode.Position(Math.min(m.line - 1, doc.lineCount - 1), character);
  const editor = await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, preserveFocus: false });
  editor.selection = new vscode.Selection(pos, pos);
  editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

function show(uri: vscode.Uri, n: Which, g: GraphResult): void {
  if (!panel) {
    panel = vscode.window.createWebviewPanel("litmus.execution", g.title, vscode.ViewColumn.Beside, {
      enableScripts: true,
      localResourceRoots: [],
    });
    panel.onDidDispose(() => (panel = undefined));
    panel.webview.onDidReceiveMessage((m: PageMessage) => void (m.type === "whole" ? toggleWhole(m.on) : reveal(m)));
  }
  shownFor = uri;
  shownViolation = n;
  outdated = false;
  panel.title = g.title;
  panel.webview.html = executionHtml(g.svg, g.title, nonce(), panel.webview.cspSource, g.whole === true);
  panel.reveal(vscode.ViewColumn.Beside, true);
  postCursor(vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString()));
}

/** The shown execution's text changed: say so in the panel (its lines are an older text's). */
function markOutdated(text?: string): void {
  if (panel && !outdated) {
    outdated = true;
    void panel.webview.postMessage({ type: "outdated", text });
  }
}

/**
 * A check of `uri` finished: an outdated picture is drawn again from it (the
 * same violation number, or the condition's or statement's failure), or
 * says it is gone.
 */
export async function onChecked(client: LanguageClient, uri: string): Promise<void> {
  if (!panel || !outdated || !shownFor || shownFor.toString() !== uri || shownViolation === undefined) {
    return;
  }
  try {
    show(shownFor, shownViolation, await request(client, shownFor, shownViolation));
  } catch {
    outdated = false;
    markOutdated(`Outdated: ${describeWhich(shownViolation)} is gone from the changed text.`);
  }
}

export function registerExecution(context: vscode.ExtensionContext, getClient: () => LanguageClient | undefined): void {
  clientOf = getClient;
  context.subscriptions.push(vscode.window.onDidChangeTextEditorSelection((e) => postCursor(e.textEditor)));
  context.subscriptions.push(
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (shownFor && e.contentChanges.length > 0 && e.document.uri.toString() === shownFor.toString()) {
        markOutdated();
      }
    }),
  );
  context.subscriptions.push(
    vscode.commands.registerCommand("litmus.showExecution", async (uri?: string, violation?: unknown) => {
      const client = getClient();
      if (!client) {
        void vscode.window.showErrorMessage("litmus: the language server is not running.");
        return;
      }
      const target = uri ? vscode.Uri.parse(uri) : vscode.window.activeTextEditor?.document.uri;
      if (!target) {
        void vscode.window.showErrorMessage("litmus: open a .litmus file first.");
        return;
      }
      if (violation !== undefined && violation !== null && asWhich(violation) === undefined) {
        void vscode.window.showErrorMessage(`litmus: no execution ${JSON.stringify(violation)}: a violation's number, "condition" or "failure:N".`);
        return;
      }
      const n = asWhich(violation) ?? (await pick(client, target));
      if (n === undefined) {
        return;
      }
      try {
        show(target, n, await request(client, target, n));
      } catch (e) {
        void vscode.window.showErrorMessage(`litmus: no execution to show: ${(e as Error).message ?? e}`);
      }
    }),
  );
}
