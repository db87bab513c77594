#!/usr/bin/env bash
# Every example's first violation drawn (`litmus explain --svg`) renders in
# librsvg (rsvg-convert), as it does in Chromium (the editors' tests): a
# picture a viewer other than a browser cannot open is a broken picture.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=target/release/litmus
out=$(mktemp -d)
n=0
for f in examples/*.litmus; do
  # Files without a violation have no picture.
  "$bin" explain "$f" --violation 1 --svg > "$out/v.svg" 2>/dev/null || continue
  rsvg-convert -o "$out/$(basename "$f" .litmus).png" "$out/v.svg"
  n=$((n + 1))
done
rm -rf "$out"
[ "$n" -gt 5 ] || { echo "only $n pictures rendered" >&2; exit 1; }
echo "librsvg rendered $n execution graphs"
