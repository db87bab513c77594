#!/usr/bin/env bash
# Runs the headless Neovim tests against target/release/litmus.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
export LITMUS_ROOT="$root"
export LITMUS_BIN="${LITMUS_BIN:-$root/target/release/litmus}"
timeout 180 nvim --headless -u NONE -i NONE -n -c "luafile $root/editors/nvim/test/sb_test.lua" 2>&1
echo
timeout 180 nvim --headless -u NONE -i NONE -n -c "luafile $root/editors/nvim/test/execution_test.lua" 2>&1
echo
timeout 300 nvim --headless -u NONE -i NONE -n -c "luafile $root/editors/nvim/test/commands_test.lua" 2>&1
echo
timeout 180 nvim --headless -u NONE -i NONE -n -c "luafile $root/editors/nvim/test/spinlock_test.lua" 2>&1
echo
timeout 180 nvim --headless -u NONE -i NONE -n -c "luafile $root/editors/nvim/test/repairs_test.lua" 2>&1
echo
timeout 60 nvim --headless -u NONE -i NONE -n -c "luafile $root/editors/nvim/test/syntax_test.lua" 2>&1
echo
