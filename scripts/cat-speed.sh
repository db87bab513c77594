#!/usr/bin/env bash
# The cat path against the built-in TSO, side by side in one run (issue 45):
# `litmus check` under herd's x86tso.cat (x86tso-mixed.cat for the X86_64
# corpus files is herd's model for them; x86tso.cat gives the same answers
# on them) against `--model tso` as the CLI runs it and as the same graph
# explorer runs it (`--bounded --explorer graph`), on the 88 corpus tests
# in one batch and on each peers' harness. Wall and CPU seconds (user +
# system) per run, each the mean of 10 runs in a row, best of 3. Usage:
# scripts/cat-speed.sh [LITMUS]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/litmus}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# One timing: the command run $reps times in a row, divided (10 ms clock).
reps=10
best() { # best of 3: "wall cpu" per run
  local b=""
  for _ in 1 2 3; do
    local t
    /usr/bin/time -o "$tmp" -f "%e %U %S" sh -c 'for i in $(seq '"$reps"'); do timeout 120 "$@" > /dev/null 2> /dev/null; done; true' sh "$@" || true
    t=$(tail -1 "$tmp" | awk -v n="$reps" '{printf "%.4f %.4f", $1 / n, ($2 + $3) / n}')
    if [ -z "$b" ] || awk -v a="$t" -v b="$b" 'BEGIN{split(a,x," ");split(b,y," ");exit !(x[1]<y[1])}'; then b=$t; fi
  done
  echo "$b"
}
printf "%-22s %16s %16s %16s %8s\n" "input" "tso (cli)" "tso (graph)" "x86tso.cat" "ratio"
row() {
  local name=$1; shift
  local a g c
  a=$(best "$bin" check --no-timing --format json --jobs 1 --threads 1 --model tso "$@")
  g=$(best "$bin" check --no-timing --format json --jobs 1 --threads 1 --model tso --bounded --explorer graph "$@")
  c=$(best "$bin" check --no-timing --format json --jobs 1 --threads 1 --model x86tso.cat "$@")
  local ratio
  ratio=$(awk -v g="$g" -v c="$c" 'BEGIN{split(g,x," ");split(c,y," ");printf "%.1f", y[1]/(x[1]>0.0005?x[1]:0.0005)}')
  printf "%-22s %7s/%7s s %7s/%7s s %7s/%7s s %7sx\n" "$name" $a $g $c "$ratio"
}
row corpus-88 tests/corpus/herd-x86/*.litmus
for f in checker/benches/harnesses/*.litmus; do
  row "$(basename "$f" .litmus)" "$f"
done
