#!/usr/bin/env bash
# Build the peers the benchmarks compare with — GenMC v0.10.3, Nidhugg and
# Trencher — from source, as ../shared/bench/README.md says, into
# target/peers/ (bin/genmc, bin/nidhugg, bin/trencher with Trencher's
# examples in trencher-examples/). Installs the Debian packages they need.
# Sources: git clones from GitHub, or local repositories (GENMC_SRC,
# NIDHUGG_SRC, TRENCHER_SRC: a clone or a bare mirror). Takes ~10 min on 2
# cores (measured 9 min 22 s for GenMC and Nidhugg, 12 s for Trencher).
# Usage: scripts/build-peers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD/target/peers
mkdir -p "$root/src" "$root/bin"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
$sudo apt-get install -y -q autoconf automake llvm-14-dev clang-14 libboost-dev libboost-test-dev \
  libboost-system-dev libffi-dev pkg-config zlib1g-dev libedit-dev make g++ cmake > /dev/null
# checkout NAME URL_OR_REPO REV: a clean tree of REV in $root/src/NAME.
checkout() {
  local name=$1 from=$2 rev=$3 dir=$root/src/$1
  rm -rf "$dir"
  mkdir -p "$dir"
  if [ -d "$from" ]; then
    git -C "$from" archive "$rev" | tar -x -C "$dir"
    echo "$name: $(git -C "$from" rev-parse "$rev^{commit}")"
  else
    git clone -q "$from" "$dir.git"
    git -C "$dir.git" archive "$rev" | tar -x -C "$dir"
    echo "$name: $(git -C "$dir.git" rev-parse "$rev^{commit}")"
    rm -rf "$dir.git"
  fi
}
if [ ! -x "$root/bin/genmc" ]; then
  checkout genmc "${GENMC_SRC:-https://github.com/MPI-SWS/genmc}" v0.10.3
  (cd "$root/src/genmc" && autoreconf --install > /dev/null 2>&1 &&
    ./configure -q --with-llvm=/usr/lib/llvm-14 > /dev/null && nice make -j2 > "$root/genmc.log" 2>&1)
  cp "$root/src/genmc/genmc" "$root/bin/genmc"
fi
if [ ! -x "$root/bin/nidhugg" ]; then
  checkout nidhugg "${NIDHUGG_SRC:-https://github.com/nidhugg/nidhugg}" HEAD
  (cd "$root/src/nidhugg" && autoreconf --install > /dev/null 2>&1 &&
    ./configure -q --with-llvm=/usr/lib/llvm-14 > /dev/null && nice make -j2 > "$root/nidhugg.log" 2>&1)
  cp "$root/src/nidhugg/src/nidhugg" "$root/bin/nidhugg"
fi
if [ ! -x "$root/bin/trencher" ]; then
  # Trencher (yegord/trencher): the TSO robustness checker the unbounded
  # procedure is compared with (checker/benches/unbounded.rs). Release
  # (-O3): upstream's default is RelWithDebInfo.
  checkout trencher "${TRENCHER_SRC:-https://github.com/yegord/trencher}" HEAD
  mkdir -p "$root/src/trencher-build"
  (cd "$root/src/trencher-build" && cmake -DCMAKE_BUILD_TYPE=Release "$root/src/trencher/src" > /dev/null &&
    nice make -j2 trencher > "$root/trencher.log" 2>&1)
  cp "$root/src/trencher-build/trencher/trencher" "$root/bin/trencher"
  rm -rf "$root/trencher-examples"
  cp -a "$root/src/trencher/examples" "$root/trencher-examples"
fi
# (GenMC's first line names only the project; the version follows.)
"$root/bin/genmc" --version 2>&1 | head -3 || true
ls -l "$root/bin"
