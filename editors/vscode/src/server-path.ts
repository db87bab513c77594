// Where `litmus.server.path` points, found before the client starts: a
// missing server is then one clear message (with a button that opens the
// setting), not the language client's "couldn't create connection" toast
// beside ours. No `vscode` import: test/status.test.mjs runs it in Node.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface Resolved {
  /** The executable to spawn, absolute when found. */
  command: string;
  found: boolean;
  /** Where it was looked for, for the message when it is missing. */
  lookedIn: string;
}

function executable(file: string, platform: NodeJS.Platform): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (platform !== "win32") fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `setting` as a process would find it: `~/…` in the home folder; a path
 * with a separator relative to `cwd` (the workspace folder); a bare name on
 * `PATH` (with `PATHEXT` on Windows).
 */
export function resolveServer(
  setting: string,
  { env = process.env, cwd = process.cwd(), platform = process.platform, home = os.homedir() }: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    platform?: NodeJS.Platform;
    home?: string;
  } = {},
): Resolved {
  let command = setting.trim() || "litmus";
  if (command === "~" || command.startsWith("~/") || command.startsWith("~\\")) {
    command = path.join(home, command.slice(1));
  }
  const p = platform === "win32" ? path.win32 : path.posix;
  const exts = platform === "win32" ? ["", ...(env.PATHEXT ?? ".EXE;.CMD;.BAT;.COM").split(";").filter(Boolean)] : [""];
  if (command.includes("/") || (platform === "win32" && command.includes("\\"))) {
    const abs = p.resolve(cwd, command);
    for (const ext of exts) {
      if (executable(abs + ext, platform)) return { command: abs + ext, found: true, lookedIn: abs };
    }
    return { command: abs, found: false, lookedIn: abs };
  }
  const dirs = (env.PATH ?? env.Path ?? "").split(platform === "win32" ? ";" : ":").filter(Boolean);
  for (const dir of dirs) {
    for (const ext of exts) {
      const file = p.join(dir, command + ext);
      if (executable(file, platform)) return { command: file, found: true, lookedIn: "PATH" };
    }
  }
  return { command, found: false, lookedIn: "PATH" };
}

/** The one message for a server that is not there (short: a toast shows it whole). */
export function notFoundMessage(r: Resolved): string {
  const where = r.lookedIn === "PATH" ? `\`${r.command}\` is not on PATH` : `\`${r.lookedIn}\` does not exist or is not executable`;
  return `litmus: the language server was not found: ${where}. Install it with \`cargo install --path .\` in the litmus repository, or set litmus.server.path.`;
}
