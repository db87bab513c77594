// The VS Code client: starts `litmus lsp`, forwards the `litmus.*` settings
// (at start and on change), and shows the check's progress in the status bar.
import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { onChecked, registerExecution } from "./execution";

let client: LanguageClient | undefined;
let status: vscode.StatusBarItem;

interface StatusParams {
  uri: string;
  version: number;
  state: "analyzed" | "checking" | "violations" | "checked" | "failed";
  /** `checked` with some answer unknown (a model timed out). */
  incomplete?: boolean;
  message: string;
}

/** The settings the server reads (its `Config`), from `litmus.*`. */
function serverSettings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration("litmus");
  return {
    models: c.get("models"),
    loopBound: c.get("loopBound"),
    unbounded: c.get("unbounded"),
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

function showStatus(p: StatusParams): void {
  const active = vscode.window.activeTextEditor?.document.uri.toString();
  if (active !== undefined && active !== p.uri) {
    return;
  }
  // A finished check with an unknown answer (a model timed out) is no ✓.
  const done = p.incomplete ? "$(warning)" : "$(check)";
  const icon = { analyzed: "$(error)", checking: "$(sync~spin)", violations: "$(sync~spin)", checked: done, failed: "$(warning)" }[p.state];
  status.text = `${icon} litmus`;
  status.tooltip = p.message;
  status.show();
}

async function start(): Promise<void> {
  const command = vscode.workspace.getConfiguration("litmus").get<string>("server.path") || "litmus";
  const serverOptions: ServerOptions = {
    run: { command, args: ["lsp"], transport: TransportKind.stdio },
    debug: { command, args: ["lsp"], transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ language: "litmus" }],
    initializationOptions: serverSettings(),
    middleware: {
      workspace: {
        // Answer in the server's shape whatever section is asked for.
        configuration: () => [serverSettings()],
      },
    },
  };
  client = new LanguageClient("litmus", "litmus", serverOptions, clientOptions);
  client.onNotification("litmus/status", (p: StatusParams) => {
    showStatus(p);
    if (p.state === "checked" && client) {
      void onChecked(client, p.uri);
    }
  });
  await client.start();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  context.subscriptions.push(status);
  registerExecution(context, () => client);
  context.subscriptions.push(
    vscode.commands.registerCommand("litmus.restartServer", async () => {
      await client?.stop();
      await start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration("litmus.server.path")) {
        await client?.stop();
        await start();
      } else if (e.affectsConfiguration("litmus") && client) {
        await client.sendNotification("workspace/didChangeConfiguration", { settings: serverSettings() });
      }
    }),
  );
  try {
    await start();
  } catch (err) {
    void vscode.window.showErrorMessage(
      `litmus: could not start \`${vscode.workspace.getConfiguration("litmus").get("server.path")} lsp\` (${err}). ` +
        "Install it with `cargo install --path .` or set `litmus.server.path`.",
    );
  }
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
