// The VS Code client: starts `litmus lsp` (after checking that it exists),
// forwards the `litmus.*` settings (at start and on change), shows the active
// document's check in the status bar (a click offers the actions), and runs
// the server's commands (explain, insert all fences, re-check).
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ResponseError,
  RevealOutputChannelOn,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { onChecked, registerExecution, violationLenses } from "./execution";
import { asWhich, Which } from "./which";
import { notFoundMessage, resolveServer } from "./server-path";
import {
  ACTIONS_COMMAND,
  actions,
  OPEN_SETTING_COMMAND,
  ServerState,
  StatusParams,
  StatusStore,
  viewFor,
} from "./status";

/** The client commands this extension implements (the server's lenses use them). */
const CLIENT_COMMANDS = ["litmus.showExecution"];

/**
 * A language client whose start-up errors are ours to report: the library
 * shows a forced "couldn't create connection to server" toast when start
 * fails, beside the one message (with buttons) this extension shows.
 */
class LitmusClient extends LanguageClient {
  quiet = true;
  override error(message: string, data?: unknown, showNotification: boolean | "force" = true): void {
    super.error(message, data, this.quiet ? false : showNotification);
  }
}

let client: LitmusClient | undefined;
let output: vscode.OutputChannel;
let item: vscode.StatusBarItem;
let server: ServerState = { kind: "starting" };
const statuses = new StatusStore();
/** The litmus document last active (the graph's webview or the quick pick may have focus now). */
let lastLitmus: vscode.Uri | undefined;
/** Files the server opened with window/showDocument, and when: not opened twice. */
const shown = new Map<string, number>();

/** The settings the server reads (its `Config`), from `litmus.*`. */
function serverSettings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration("litmus");
  return {
    models: c.get("models"),
    loopBound: c.get("loopBound"),
    unbounded: c.get("unbounded"),
    repairCosts: c.get("repairCosts"),
    preemptionBound: c.get("preemptionBound"),
    bufferBound: c.get("bufferBound"),
    monitor: c.get("monitor"),
    timeout: c.get("timeout"),
    budget: c.get("budget"),
    debounceMs: c.get("debounceMs"),
    cycleMembers: c.get("cycleMembers"),
    // Empty: the codes.md beside the server.
    codesUrl: c.get("codesUrl") || null,
    // { enable }: values per load and the condition's answers inline.
    inlayHints: c.get("inlayHints"),
    // { enable, timeout }: the files not open, checked in the background.
    workspaceDiagnostics: c.get("workspaceDiagnostics"),
  };
}

/** The Error and Warning diagnostics VS Code holds for `uri` (for a server that sends no counts). */
function heldCounts(uri: vscode.Uri): { errors: number; warnings: number } {
  const diags = vscode.languages.getDiagnostics(uri);
  return {
    errors: diags.filter((d) => d.severity === vscode.DiagnosticSeverity.Error).length,
    warnings: diags.filter((d) => d.severity === vscode.DiagnosticSeverity.Warning).length,
  };
}

/** Shows the active editor's status, or hides the item for a document that is not litmus. */
function refresh(): void {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    // A webview or nothing has focus: keep what is shown.
    return;
  }
  const doc = editor.document;
  if (doc.languageId === "litmus") {
    lastLitmus = doc.uri;
  }
  const view = viewFor({ uri: doc.uri.toString(), languageId: doc.languageId }, statuses, server, heldCounts(doc.uri));
  if (view === undefined) {
    item.hide();
    return;
  }
  item.text = view.text;
  item.tooltip = view.tooltip;
  item.backgroundColor = view.background ? new vscode.ThemeColor(view.background) : undefined;
  item.command = view.command;
  item.show();
}

function onStatus(p: StatusParams): void {
  if (statuses.update(p) && vscode.window.activeTextEditor?.document.uri.toString() === p.uri) {
    refresh();
  }
  if (p.state === "checked" && client) {
    void onChecked(client, p.uri);
  }
}

function openSetting(): Thenable<unknown> {
  return vscode.commands.executeCommand("workbench.action.openSettings", "litmus.server.path");
}

/** The server could not start: one message with what to do, and the status bar says so. */
async function reportFailure(reason: string, notFound: boolean, command: string): Promise<void> {
  server = { kind: "failed", reason, notFound, command };
  refresh();
  const buttons = notFound ? ["Open setting", "Install instructions"] : ["Open setting", "Show output"];
  const choice = await vscode.window.showErrorMessage(reason, ...buttons);
  if (choice === "Open setting") {
    await openSetting();
  } else if (choice === "Install instructions") {
    await vscode.commands.executeCommand("litmus.installInstructions");
  } else if (choice === "Show output") {
    output.show(true);
  }
}

function workspaceDir(): string | undefined {
  const f = vscode.workspace.workspaceFolders?.[0];
  return f?.uri.scheme === "file" ? f.uri.fsPath : undefined;
}

async function start(): Promise<void> {
  const setting = vscode.workspace.getConfiguration("litmus").get<string>("server.path") || "litmus";
  server = { kind: "starting" };
  statuses.clear();
  refresh();
  const resolved = resolveServer(setting, { cwd: workspaceDir() });
  if (!resolved.found) {
    output.appendLine(`[litmus] ${notFoundMessage(resolved)}`);
    void reportFailure(notFoundMessage(resolved), true, setting);
    return;
  }
  const command = resolved.command;
  const serverOptions: ServerOptions = {
    run: { command, args: ["lsp"], transport: TransportKind.stdio },
    debug: { command, args: ["lsp"], transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: "litmus" }],
    initializationOptions: { ...serverSettings(), clientCommands: CLIENT_COMMANDS },
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    // A failed `initialize` is reported once, below; no retry prompt.
    initializationFailedHandler: () => false,
    middleware: {
      workspace: {
        // Answer in the server's shape whatever section is asked for.
        configuration: () => [serverSettings()],
      },
      window: {
        // The server opens what `explain` wrote: Markdown as a preview, once.
        showDocument: async (params, next) => {
          const uri = vscode.Uri.parse(params.uri);
          if (params.external !== true && uri.path.endsWith(".md")) {
            await showMarkdown(uri);
            return { success: true };
          }
          const r = await next(params, new vscode.CancellationTokenSource().token);
          return r instanceof ResponseError ? { success: false } : r;
        },
      },
    },
  };
  const c = new LitmusClient("litmus", "litmus", serverOptions, clientOptions);
  client = c;
  c.onNotification("litmus/status", onStatus);
  try {
    await c.start();
  } catch (err) {
    if (client === c) {
      client = undefined;
    }
    const why = err instanceof Error ? err.message : String(err);
    void reportFailure(`litmus: \`${command} lsp\` did not start (${why}). Check that litmus.server.path is the litmus binary.`, false, setting);
    return;
  }
  // Started: later errors (a crash, a failed request) may toast as usual.
  c.quiet = false;
  server = { kind: "running" };
  refresh();
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try {
      await c.stop();
    } catch {
      // Never started, or already gone.
    }
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

/** The litmus document a command applies to: the active one, else the last one active. */
function targetDocument(): vscode.Uri | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (doc?.languageId === "litmus") {
    return doc.uri;
  }
  return lastLitmus;
}

/** `workspace/executeCommand` of one of the server's `litmus.server.*` commands. */
async function serverCommand<T>(command: string, args: unknown[]): Promise<T | undefined> {
  const c = client;
  if (!c || !c.isRunning()) {
    const choice = await vscode.window.showErrorMessage("litmus: the language server is not running.", "Restart server");
    if (choice) await restart();
    return undefined;
  }
  try {
    return await c.sendRequest<T>("workspace/executeCommand", { command, arguments: args });
  } catch (e) {
    void vscode.window.showErrorMessage(`litmus: ${(e as Error).message ?? e}`);
    return undefined;
  }
}

/** Opens a Markdown file as a preview beside the source, unless it was just opened. */
async function showMarkdown(uri: vscode.Uri): Promise<void> {
  const key = uri.toString();
  const at = shown.get(key);
  if (at !== undefined && Date.now() - at < 5000) {
    return;
  }
  shown.set(key, Date.now());
  try {
    await vscode.commands.executeCommand("markdown.showPreviewToSide", uri);
  } catch {
    await vscode.window.showTextDocument(uri, { viewColumn: vscode.ViewColumn.Beside, preview: true });
  }
}

/** Markdown a server command wrote (explain, port): its file as a preview, else the text beside. */
async function showServerMarkdown(r: { markdown: string; path?: string }): Promise<void> {
  if (r.path) {
    await showMarkdown(vscode.Uri.file(r.path));
  } else {
    const doc = await vscode.workspace.openTextDocument({ language: "markdown", content: r.markdown });
    await vscode.commands.executeCommand("markdown.showPreviewToSide", doc.uri);
  }
}

/** Which violation to explain: the cursor's line's, else a choice, else the server's first. */
async function explainTarget(c: LanguageClient, uri: vscode.Uri): Promise<Which | undefined | null> {
  const items = await violationLenses(c, uri);
  const editor = vscode.window.activeTextEditor;
  if (editor && editor.document.uri.toString() === uri.toString()) {
    const here = items.find((i) => i.line === editor.selection.active.line);
    if (here) return here.n;
  }
  if (items.length <= 1) {
    return undefined;
  }
  const first = { label: "The first finding", description: "the one the server picks", n: undefined as Which | undefined };
  const picked = await vscode.window.showQuickPick([first, ...items], { placeHolder: "Explain which finding?" });
  return picked === undefined ? null : picked.n;
}

async function explain(uri?: string, violation?: unknown): Promise<void> {
  const target = uri ? vscode.Uri.parse(uri) : targetDocument();
  if (!target) {
    void vscode.window.showErrorMessage("litmus: open a .litmus file first.");
    return;
  }
  let n: Which | undefined | null = asWhich(violation);
  if (n === undefined && client?.isRunning()) {
    n = await explainTarget(client, target);
    if (n === null) return;
  }
  const args: unknown[] = n === undefined ? [target.toString()] : [target.toString(), n];
  const r = await serverCommand<{ markdown: string; path?: string }>("litmus.server.explain", args);
  if (r) await showServerMarkdown(r);
}

async function insertAllFences(uri?: string): Promise<void> {
  const target = uri ? vscode.Uri.parse(uri) : targetDocument();
  if (!target) {
    void vscode.window.showErrorMessage("litmus: open a .litmus file first.");
    return;
  }
  const r = await serverCommand<{ applied: boolean; fences: number; repair?: boolean }>("litmus.server.insertAllFences", [target.toString()]);
  if (!r) return;
  if (r.repair && r.fences > 0) {
    // A repair under ARM, RISC-V or C11: barriers and stronger accesses.
    const n = r.fences === 1 ? "1 change" : `${r.fences} changes`;
    if (r.applied) void vscode.window.setStatusBarMessage(`litmus: applied the repair (${n})`, 5000);
    else void vscode.window.showWarningMessage(`litmus: the repair (${n}) was not applied (the edit was refused).`);
  } else if (r.fences === 0) {
    void vscode.window.showInformationMessage("litmus: no fences to insert (no violation with a confirmed fix).");
  } else if (!r.applied) {
    void vscode.window.showWarningMessage(`litmus: the ${r.fences === 1 ? "fence was" : `${r.fences} fences were`} not inserted (the edit was refused).`);
  } else {
    void vscode.window.setStatusBarMessage(`litmus: inserted ${r.fences === 1 ? "1 fence" : `${r.fences} fences`}`, 5000);
  }
}

/** The models a port is offered between: herd's x86-TSO as data, the architectures', SC. */
const PORT_MODELS: vscode.QuickPickItem[] = [
  { label: "x86tso.cat", description: "x86-TSO (herd's model, as data)" },
  { label: "sc", description: "sequential consistency" },
  { label: "aarch64", description: "ARMv8" },
  { label: "riscv", description: "RVWMO" },
  { label: "rc11", description: "C11 (RC11)" },
];

/** What moving the program from one model to another changes: executions and final states, as Markdown. */
async function port(uri?: string, from?: string, to?: string): Promise<void> {
  const target = uri ? vscode.Uri.parse(uri) : targetDocument();
  if (!target) {
    void vscode.window.showErrorMessage("litmus: open a .litmus file first.");
    return;
  }
  from ??= (await vscode.window.showQuickPick(PORT_MODELS, { placeHolder: "Port from which model (the one the program was written for)?" }))?.label;
  if (!from) return;
  const rest = PORT_MODELS.filter((m) => m.label !== from);
  to ??= (await vscode.window.showQuickPick(rest, { placeHolder: `Port from ${from} to which model?` }))?.label;
  if (!to) return;
  const r = await serverCommand<{ markdown: string; path?: string }>("litmus.server.port", [target.toString(), from, to]);
  if (r) await showServerMarkdown(r);
}

async function recheck(uri?: string): Promise<void> {
  const target = uri ? vscode.Uri.parse(uri) : targetDocument();
  if (!target) {
    void vscode.window.showErrorMessage("litmus: open a .litmus file first.");
    return;
  }
  await serverCommand("litmus.server.recheck", [target.toString()]);
}

async function statusActions(): Promise<void> {
  const picked = await vscode.window.showQuickPick(actions(server), { placeHolder: "litmus" });
  if (picked) {
    await vscode.commands.executeCommand(picked.command);
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("litmus");
  item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  item.name = "litmus";
  context.subscriptions.push(output, item);
  registerExecution(context, () => client);
  context.subscriptions.push(
    vscode.commands.registerCommand("litmus.restartServer", restart),
    vscode.commands.registerCommand("litmus.explain", explain),
    vscode.commands.registerCommand("litmus.insertAllFences", insertAllFences),
    vscode.commands.registerCommand("litmus.recheck", recheck),
    vscode.commands.registerCommand("litmus.port", port),
    vscode.commands.registerCommand("litmus.showOutput", () => output.show(true)),
    vscode.commands.registerCommand(ACTIONS_COMMAND, statusActions),
    vscode.commands.registerCommand(OPEN_SETTING_COMMAND, openSetting),
    vscode.commands.registerCommand("litmus.installInstructions", () =>
      vscode.commands.executeCommand("markdown.showPreview", vscode.Uri.joinPath(context.extensionUri, "README.md")),
    ),
    vscode.window.onDidChangeActiveTextEditor(refresh),
    vscode.languages.onDidChangeDiagnostics((e) => {
      const active = vscode.window.activeTextEditor?.document.uri.toString();
      if (e.uris.some((u) => u.toString() === active)) refresh();
    }),
    vscode.workspace.onDidCloseTextDocument((d) => statuses.forget(d.uri.toString())),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("litmus.server.path")) {
        await restart();
      } else if (e.affectsConfiguration("litmus") && client?.isRunning()) {
        await client.sendNotification("workspace/didChangeConfiguration", { settings: serverSettings() });
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}
