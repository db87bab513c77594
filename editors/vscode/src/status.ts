// What the status bar says, as pure functions of the server's `litmus/status`
// notifications (no `vscode` import: test/status.test.mjs runs them in
// Node). The extension keeps the last status of every document in a
// `StatusStore` and shows the active editor's: a file's state never leaks
// into another's, and a document that is not litmus hides the item.

export type CheckState = "analyzed" | "checking" | "violations" | "checked" | "failed";

/** `litmus/status` (lsp/src/pipeline.rs `StatusParams`). */
export interface StatusParams {
  uri: string;
  version: number;
  /** analyzed (errors stop the check), checking, violations (known; harm and outcomes still running), checked, failed. */
  state: CheckState;
  message: string;
  /** `checked` with some answer unknown (a model timed out). */
  incomplete?: boolean;
  /** Error diagnostics published for that version. */
  errors?: number;
  /** Warning diagnostics published for that version. */
  warnings?: number;
  /** Short text for a status bar: "2 harmful violations", "robust (proved)", … */
  headline?: string;
}

/** The server process, as far as the status bar is concerned. */
export type ServerState =
  | { kind: "starting" }
  | { kind: "running" }
  /** Could not start: `notFound` when the executable does not exist. */
  | { kind: "failed"; reason: string; notFound: boolean; command: string };

export const ERROR_BACKGROUND = "statusBarItem.errorBackground";
export const WARNING_BACKGROUND = "statusBarItem.warningBackground";

/** What the status bar item shows. */
export interface StatusView {
  /** With codicons (`$(error)`). */
  text: string;
  tooltip: string;
  /** A theme colour id for the background, or none. */
  background?: string;
  /** The command a click runs. */
  command: string;
}

/** The quick pick a click opens (`litmus.statusActions`). */
export const ACTIONS_COMMAND = "litmus.statusActions";
/** What a click runs when the server could not start. */
export const OPEN_SETTING_COMMAND = "litmus.openServerSetting";

const MAX_LABEL = 60;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function clip(s: string): string {
  const chars = [...s.replace(/\s+/g, " ").trim()];
  return chars.length <= MAX_LABEL ? chars.join("") : chars.slice(0, MAX_LABEL - 1).join("") + "…";
}

/** The counts in words: "2 errors, 1 warning", or "" for none. */
export function counts(p: Pick<StatusParams, "errors" | "warnings">): string {
  const parts: string[] = [];
  if ((p.errors ?? 0) > 0) parts.push(plural(p.errors!, "error"));
  if ((p.warnings ?? 0) > 0) parts.push(plural(p.warnings!, "warning"));
  return parts.join(", ");
}

/**
 * The icon: a spinner while the check runs; then an error when any Error
 * diagnostic was published (never a ✓ with errors), a warning for warnings,
 * an unknown answer or a failed check, else a check mark.
 */
export function icon(p: StatusParams): string {
  if (p.state === "checking" || p.state === "violations") return "$(sync~spin)";
  const errors = p.errors;
  // A server without counts: an analysis that stopped the check had errors.
  if (errors === undefined) {
    if (p.state === "analyzed") return "$(error)";
    if (p.state === "failed" || p.incomplete) return "$(warning)";
    return "$(check)";
  }
  if (errors > 0) return "$(error)";
  if ((p.warnings ?? 0) > 0 || p.incomplete || p.state === "failed") return "$(warning)";
  return "$(check)";
}

/** The words after "litmus: ": the server's headline, else what the state and counts say. */
export function label(p: StatusParams): string {
  if (p.headline && p.headline.trim() !== "") return clip(p.headline);
  const c = counts(p);
  switch (p.state) {
    case "checking":
    case "violations":
      return c === "" ? "checking…" : `${c}, checking…`;
    case "failed":
      return "check failed";
    case "analyzed":
      return c === "" ? "not checked" : `${c} — not checked`;
    case "checked":
      if (c !== "") return c;
      if (p.errors === undefined) return "";
      return p.incomplete ? "some answers unknown" : "no problems";
  }
  return c;
}

/**
 * A status from a server that sends no counts takes them from the
 * diagnostics the editor holds for the document, so an error never shows
 * as a check mark.
 */
export function withCounts(p: StatusParams, held: { errors: number; warnings: number }): StatusParams {
  return p.errors === undefined ? { ...p, errors: held.errors, warnings: held.warnings } : p;
}

/** The view of one document's last status. */
export function statusView(p: StatusParams): StatusView {
  const c = counts(p);
  const lines = [p.message.trim()];
  if (c !== "" && !p.message.includes(c)) lines.push(c);
  lines.push("Click for litmus actions.");
  const words = label(p);
  return {
    text: words === "" ? `${icon(p)} litmus` : `${icon(p)} litmus: ${words}`,
    tooltip: lines.filter((l) => l !== "").join("\n"),
    background: p.state === "failed" ? WARNING_BACKGROUND : undefined,
    command: ACTIONS_COMMAND,
  };
}

/** The server could not start: in error colours; a click opens the setting. */
export function serverFailedView(s: { reason: string; notFound: boolean; command: string }): StatusView {
  return {
    text: `$(error) litmus: ${s.notFound ? "server not found" : "server not started"}`,
    tooltip: `${s.reason}\nClick to set litmus.server.path.`,
    background: ERROR_BACKGROUND,
    command: OPEN_SETTING_COMMAND,
  };
}

/** A litmus document the server has not reported on yet. */
export function waitingView(server: ServerState): StatusView {
  return {
    text: "$(sync~spin) litmus",
    tooltip: server.kind === "starting" ? "Starting the litmus language server…" : "Waiting for the first check…",
    command: ACTIONS_COMMAND,
  };
}

/** The active editor's document, as far as the status bar cares. */
export interface ActiveDocument {
  uri: string;
  languageId: string;
}

/**
 * What the item shows for the active document: undefined hides it (a
 * document that is not litmus).
 */
export function viewFor(
  doc: ActiveDocument,
  store: StatusStore,
  server: ServerState,
  held?: { errors: number; warnings: number },
): StatusView | undefined {
  if (doc.languageId !== "litmus") return undefined;
  if (server.kind === "failed") return serverFailedView(server);
  const p = store.get(doc.uri);
  if (p === undefined) return waitingView(server);
  return statusView(held ? withCounts(p, held) : p);
}

/** The last status of each document, by URI. */
export class StatusStore {
  private readonly byUri = new Map<string, StatusParams>();

  /**
   * Keeps `p` unless the document already has a newer version's status
   * (statuses arrive in order; this only guards against a late one).
   * Returns whether it was kept.
   */
  update(p: StatusParams): boolean {
    const old = this.byUri.get(p.uri);
    if (old !== undefined && old.version > p.version) return false;
    this.byUri.set(p.uri, p);
    return true;
  }

  get(uri: string): StatusParams | undefined {
    return this.byUri.get(uri);
  }

  /** A closed document: its next open starts afresh (versions start again at 1). */
  forget(uri: string): void {
    this.byUri.delete(uri);
  }

  /** A restarted server reports every open document again. */
  clear(): void {
    this.byUri.clear();
  }

  get size(): number {
    return this.byUri.size;
  }
}

/** One entry of the status bar's quick pick. */
export interface Action {
  label: string;
  description?: string;
  /** A VS Code command id. */
  command: string;
}

/** What a click on the status bar offers. */
export function actions(server: ServerState): Action[] {
  if (server.kind === "failed") {
    return [
      { label: "$(gear) Open setting", description: "litmus.server.path", command: OPEN_SETTING_COMMAND },
      { label: "$(book) Install instructions", command: "litmus.installInstructions" },
      { label: "$(debug-restart) Restart server", command: "litmus.restartServer" },
      { label: "$(output) Show output", command: "litmus.showOutput" },
    ];
  }
  return [
    { label: "$(list-flat) Show problems", command: "workbench.actions.view.problems" },
    { label: "$(type-hierarchy) Show execution", description: "a violation's execution graph", command: "litmus.showExecution" },
    { label: "$(book) Explain violation", description: "step by step, in Markdown", command: "litmus.explain" },
    { label: "$(wand) Insert all fences", description: "the minimal fences for every violation", command: "litmus.insertAllFences" },
    { label: "$(refresh) Re-check", command: "litmus.recheck" },
    { label: "$(debug-restart) Restart server", command: "litmus.restartServer" },
    { label: "$(output) Show output", command: "litmus.showOutput" },
  ];
}
