#!/usr/bin/env bash
# A memory model is one module: build everything with the checker's
# test-only fifth model (XTSO, declared in checker/src/model.rs alone) and
# see it flow through the checker, the CLI (check, fix, JSON) and the
# language server's settings. Its own target directory: the features differ
# from the main build's (a few minutes from scratch).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/extra-model
cargo test --release --target-dir "$dir" -p litmus-checker --features extra-model --test extra_model --test differential
cargo test --release --target-dir "$dir" -p litmus --features extra-model --test extra_model
cargo test --release --target-dir "$dir" -p litmus-lsp --features extra-model --test extra_model
