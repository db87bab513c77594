#!/usr/bin/env bash
# Generated tests beyond the corpus (issue 46): diy7, built from the herd7
# tree scripts/build-herd7.sh unpacked (same commit), generates RISC-V, C
# and AArch64 cycles; scripts/vs-herd7.py compares litmus with herd7 on
# each set (AArch64 under the project's aarch64, under herd's own
# aarch64.cat read by litmus too, and under sc.cat as data: herd's sc.cat
# splits an atomic's read and write, see docs/models.md).
# Usage: scripts/diy-vs-herd7.sh [OUT]   (default OUT=/tmp/diy-gen)
# Needs scripts/build-herd7.sh first (PREFIX, default /work/peers/herd7).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${PREFIX:-/work/peers/herd7}
out=${1:-/tmp/diy-gen}
tree=$prefix/src/herdtools7
[ -d "$tree" ] || { echo "no herdtools7 tree in $tree: run scripts/build-herd7.sh" >&2; exit 2; }
(cd "$tree" && nice dune build -j 2 --profile release gen/diy.exe)
diy=$tree/_build/default/gen/diy.exe
gen() { # arch dir relax safe [extra]
  rm -rf "$out/$2" && mkdir -p "$out/$2"
  (cd "$out/$2" && "$diy" -arch "$1" -set-libdir "$prefix/libdir" -size 6 -nprocs 4 -mix true -maxrelax 2 \
    -relax "$3" -safe "$4" ${5:-} -o gen.tar | grep produced && tar -xf gen.tar && rm gen.tar)
}
gen RISCV riscv "Rfi PosWW PosRW PodWW PodWR PodRW PodRR Fence.rw.rwdWW Fence.rw.rwdWR Fence.rw.rwdRW \
Fence.rw.rwdRR Fence.r.rwdRW Fence.w.wdWW Fence.tsodWW Fence.tsodRR DpAddrdR DpAddrdW DpDatadW DpCtrldW" \
  "Rfe Fre Wse"
gen C c "PodWWRlxRlx PodWWRlxRel PodWWScSc PodWWRelRel PodWRRlxRlx PodWRScSc PodWRRelAcq PodRWRlxRlx \
PodRWAcqRlx PodRWAcqRel PodRRRlxRlx PodRRAcqRlx PodRRScSc PodRRAcqAcq PodWWNaRel PodRRAcqNa FenceScdWR \
FenceScdRR FenceScdWW FenceReldWW FenceAcqdRR" \
  "RfeRlxRlx RfeRelAcq FreRlxRlx WseRlxRlx RfeRlxAcq FreRlxRel RfeScSc FreScSc" -nooptcond
gen AArch64 aarch64 "Rfi PosWW PosRW PodWW PodWR PodRW PodRR DMB.SYdWW DMB.SYdWR DMB.SYdRW DMB.SYdRR \
DMB.LDdRR DMB.LDdRW DMB.STdWW ISBdRR DpAddrdR DpAddrdW DpDatadW DpCtrldW DpCtrlIsbdR DpAddrCseldR DpDataCseldW \
PodWWPL PodRRAP PodRRQP PodRWAP PodWRLA" "Rfe Fre Wse"
vs=$root/scripts/vs-herd7.py
python3 "$vs" riscv.cat --litmus-model riscv "$out/riscv" | tail -2
python3 "$vs" sc.cat --litmus-model sc "$out/riscv" | tail -2
python3 "$vs" --c11 rc11.cat --litmus-model rc11 "$out/c" | tail -2
python3 "$vs" --c11 sc.cat --litmus-model sc "$out/c" | tail -2
python3 "$vs" aarch64.cat --litmus-model aarch64 "$out/aarch64" | tail -2
python3 "$vs" aarch64.cat "$out/aarch64" | tail -2   # herd's own aarch64.cat, read by litmus too
python3 "$vs" sc.cat "$out/aarch64" | tail -2
