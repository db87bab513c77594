// A fresh code-server for one test run: its own user-data, extensions and
// config folders under `dir`, the packaged litmus.vsix installed into them,
// settings pointing the extension at the release binary, a port the kernel
// picks (read back from code-server's log, so no race for a free port).
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";

/** What a fresh profile needs so the editor shows the file and nothing else. */
function settings(litmusBin) {
  return {
    "litmus.server.path": litmusBin,
    "litmus.debounceMs": 0,
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": false,
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "workbench.welcomePage.walkthroughs.openOnInstall": false,
    "chat.disableAIFeatures": true,
    "extensions.ignoreRecommendations": true,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "security.workspace.trust.enabled": false,
    "files.autoSave": "off",
    // The workspace lies inside this repository: no "open the parent repository?" toast.
    "git.enabled": false,
    "git.openRepositoryInParentFolders": "never",
    "editor.minimap.enabled": false,
    // One row per problem (the tree view adds a row per related location).
    "problems.defaultViewMode": "table",
    "editor.hover.delay": 150,
    "editor.inlayHints.enabled": "on",
    "editor.codeLens": true,
    "editor.lightbulb.enabled": "on",
    "window.menuBarVisibility": "hidden",
  };
}

/** Runs `node entry.js args…` to completion; rejects with its output on failure. */
function run(node, entry, args, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [entry, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`code-server ${args.join(" ")}: no exit after ${timeoutMs} ms\n${out}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`code-server ${args.join(" ")} exited ${code}\n${out}`));
    });
  });
}

/**
 * Starts code-server on `workspace` with litmus.vsix installed in a fresh
 * profile under `dir`. Returns `{ url, log(), stop() }`.
 */
export async function startCodeServer({ node, entry, vsix, litmusBin, dir, workspace, timeoutMs = 60000 }) {
  for (const [what, path] of [["code-server", entry], ["litmus.vsix", vsix], ["litmus binary", litmusBin]]) {
    if (!existsSync(path)) throw new Error(`${what} not found at ${path}`);
  }
  rmSync(dir, { recursive: true, force: true });
  const data = join(dir, "data");
  const exts = join(dir, "extensions");
  mkdirSync(join(data, "User"), { recursive: true });
  mkdirSync(exts, { recursive: true });
  writeFileSync(join(data, "User", "settings.json"), JSON.stringify(settings(litmusBin), null, 2));
  // Our own config file, so code-server never writes one into ~/.config.
  const config = join(dir, "config.yaml");
  writeFileSync(config, "bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n");
  const common = ["--config", config, "--user-data-dir", data, "--extensions-dir", exts];

  await run(node, entry, [...common, "--install-extension", vsix], timeoutMs);

  const child = spawn(
    node,
    [
      entry,
      ...common,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      workspace,
    ],
    // Its own process group: stop() ends code-server and everything it started.
    { stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  let out = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`code-server did not report a listening port within ${timeoutMs} ms\n${out}`)),
      timeoutMs,
    );
    const onData = (d) => {
      out += d;
      const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited ${code} before listening\n${out}`));
    });
  });
  let stopped = false;
  return {
    url,
    log: () => out,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // Already gone.
      }
    },
  };
}
