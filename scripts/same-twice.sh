#!/usr/bin/env bash
# Answers are a function of the input and the options (issue 43): check
# every example, corpus test and Trencher translation twice, timing left
# out, and compare the reports byte for byte. Run it while the machine is
# busy (a build beside it) to see that load changes nothing.
#   scripts/same-twice.sh [LITMUS] [extra check flags…]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/litmus}
shift || true
files=(examples tests/corpus/herd-x86 tests/programs)
out=$(mktemp -d)
for run in 1 2; do
  "$bin" check --format json --no-timing "$@" "${files[@]}" >"$out/$run.jsonl" 2>/dev/null || true
done
n=$(wc -l <"$out/1.jsonl")
if cmp -s "$out/1.jsonl" "$out/2.jsonl"; then
  echo "same twice: $((n - 1)) reports byte for byte"
else
  echo "DIFFERENT:"
  diff <(python3 -c 'import json,sys
for l in open(sys.argv[1]): d=json.loads(l); print(d.get("file"), json.dumps(d, sort_keys=True)[:400])' "$out/1.jsonl") \
       <(python3 -c 'import json,sys
for l in open(sys.argv[1]): d=json.loads(l); print(d.get("file"), json.dumps(d, sort_keys=True)[:400])' "$out/2.jsonl") | head -40
  exit 1
fi
