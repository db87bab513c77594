#!/usr/bin/env bash
# What the editor tests need on a fresh machine: the VS Code extension's
# Node packages (from its lockfile, puppeteer-core among them), Neovim,
# Chromium and librsvg's rsvg-convert (Debian's packages; the execution
# graphs are rendered in headless Chromium and in librsvg). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -d editors/vscode/node_modules ] || [ editors/vscode/package-lock.json -nt editors/vscode/node_modules ]; then
  (cd editors/vscode && npm ci --no-audit --no-fund --loglevel=error)
fi

missing=()
command -v nvim >/dev/null 2>&1 || missing+=(neovim)
[ -x /usr/bin/chromium ] || missing+=(chromium)
# librsvg's renderer: the execution graphs must draw there too (scripts/test.sh).
command -v rsvg-convert >/dev/null 2>&1 || missing+=(librsvg2-bin)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
    || { $sudo apt-get update -qq && $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; }
fi
nvim --version | head -1
/usr/bin/chromium --version 2>/dev/null || true
