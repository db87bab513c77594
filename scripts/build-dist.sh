#!/usr/bin/env bash
# The release artifact: the `dist` profile (fat LTO, one codegen unit) and
# statically linked (glibc, libstdc++), into target/dist/litmus. Static
# saves the dynamic loader's work at every start (about 0.55 ms of a 1.6 ms
# `litmus --version` here: libstdc++'s symbol lookups and page faults),
# which is a good share of a small check's time. crt-static needs an
# explicit --target (proc macros must stay dynamic), hence the triple.
# Usage: scripts/build-dist.sh   (minutes: the whole-program LTO link)
set -euo pipefail
cd "$(dirname "$0")/.."
triple=$(rustc -vV | sed -n 's/^host: //p')
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
  cargo build --profile dist --target "$triple" --bin litmus
mkdir -p target/dist
cp "target/$triple/dist/litmus" target/dist/litmus
target/dist/litmus --version
