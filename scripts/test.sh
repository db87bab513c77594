#!/usr/bin/env bash
# The whole test suite: the Rust workspace, then both editors against the
# release binary (installing their Node packages and Neovim first if needed).
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace --release
cargo build --release --bin litmus

bash scripts/install-editor-deps.sh
(
  cd editors/vscode
  npm run --silent typecheck
  npm test --silent
  npm run --silent package >/dev/null
  echo "packaged editors/vscode/litmus.vsix"
)
bash editors/nvim/test/run.sh
