#!/usr/bin/env bash
# Every report the checker gives on the examples, the herd corpus, 300
# generated programs and the Trencher translations, under every model and
# each mode (the unbounded procedure, the bounded engine with each explorer
# and monitor, active testing), with --no-timing: a refactoring must leave
# them byte for byte. Compare two snapshots with scripts/compare-reports.py
# (which leaves out what the clock cut). Usage:
# scripts/snapshot-reports.sh OUT_DIR [LITMUS]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/snapshot-reports.sh OUT_DIR [LITMUS]}
bin=${2:-target/release/litmus}
mkdir -p "$out"
# 300 generated diy-style cycles (tests/diy's generator, same seed).
# (A fixed path: reports name their files.)
gen=target/snapshot-gen
rm -rf "$gen"
python3 scripts/generate-diy.py "$gen" 300
small=(examples/*.litmus tests/corpus/herd-x86/*.litmus "$gen"/*.litmus)
# The translations that finish well within their budget (the ones whose
# state space is infinite are cut by time, which varies; so is PSLO's
# exploration of their endless loops).
big=()
for f in examples/trencher/*.litmus examples/trencher/memorax/*.litmus; do
  grep -q "without bound" "$f" || big+=("$f")
done
# run NAME MODELS FLAGS...: the small files under MODELS, the big ones
# under SC, TSO and PSO (PSLO's exploration of their loops is cut by time).
run() {
  local name=$1 models=$2
  shift 2
  "$bin" check --no-timing --format json --jobs 2 "$@" --model "$models" "${small[@]}" > "$out/$name.jsonl" 2> /dev/null || true
  "$bin" check --no-timing --format json --jobs 2 "$@" --model sc,tso,pso "${big[@]}" > "$out/$name-big.jsonl" 2> /dev/null || true
}
run default sc,tso,pso,pslo
run bounded sc,tso,pso,pslo --bounded
run graph sc,tso,pso --bounded --explorer graph
run interleaving sc,tso,pso --bounded --explorer interleaving
run sober sc,tso,pso --bounded --monitor sober
run bss-interleaving sc,tso,pso --bounded --monitor bss-interleaving
run active sc,tso,pso --mode active --runs 20 --seed 1
"$bin" check --no-timing --color never --jobs 2 "${small[@]}" > "$out/human.txt" 2> /dev/null || true
for f in examples/dekker.litmus examples/peterson.litmus examples/sb.litmus examples/trencher/dekker.litmus; do
  n=$(echo "$f" | tr '/' '_')
  "$bin" fix "$f" > "$out/fix-$n.out" 2>&1 || true
  "$bin" explain "$f" --violation 1 > "$out/explain-$n.out" 2>&1 || true
done
