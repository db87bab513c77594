-- Headless Neovim: the plugin's syntax file highlights each format's own
-- words (without the language server): a C test's atomics and memory
-- orders, a RISC-V test's mnemonics (lr/sc with .aq) and registers, an
-- AArch64 test's mnemonics, registers and barrier options, and
-- neither in a native file whose names look like them.
local root = assert(os.getenv('LITMUS_ROOT'), 'LITMUS_ROOT')
vim.opt.runtimepath:prepend(root .. '/editors/nvim')
vim.cmd('filetype on')
vim.cmd('syntax on')
local harness = dofile(root .. '/editors/nvim/test/harness.lua')
local check = harness.check

local function group(path, lines, word)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local file = dir .. '/' .. path
  vim.fn.writefile(lines, file)
  vim.cmd('edit ' .. file)
  for l, text in ipairs(lines) do
    local col = text:find(word, 1, true)
    if col then
      return vim.fn.synIDattr(vim.fn.synID(l, col, 1), 'name')
    end
  end
  return '(not found)'
end

local c = {
  'C MP',
  '{ [x] = 0; [y] = 0; }',
  'P0 (atomic_int* x, atomic_int* y) {',
  '  atomic_store_explicit(x, 1, memory_order_release);',
  '}',
  'exists (x=1)',
}
check(group('c.litmus', c, 'atomic_store_explicit') == 'litmusAtomic', 'C: an atomic function')
check(group('c2.litmus', c, 'memory_order_release') == 'litmusOrder', 'C: a memory order')
local rv = {
  'RISCV LRSC',
  '{ 0:x6=x; }',
  ' P0                 ;',
  ' lr.w.aq x5,0(x6)   ;',
  ' sc.w x7,x5,0(x6)   ;',
  'exists (0:x7=0)',
}
check(group('rv.litmus', rv, 'lr.w.aq') == 'litmusInstr', 'RISC-V: lr.w.aq is an instruction')
check(group('rv2.litmus', rv, 'x6') == 'litmusRegister', 'RISC-V: x6 is a register')
local arm = {
  'AArch64 MP',
  '{ 0:X1=x; }',
  ' P0           ;',
  ' LDAR W0,[X1] ;',
  ' DMB ISHLD    ;',
  ' LDXP W2,W3,[X1] ;',
  'exists (0:X0=0)',
}
check(group('a.litmus', arm, 'LDAR') == 'litmusInstr', 'AArch64: LDAR is an instruction')
check(group('a4.litmus', arm, 'LDXP') == 'litmusInstr', 'AArch64: LDXP (a pair) is an instruction')
check(group('a2.litmus', arm, 'W0') == 'litmusRegister', 'AArch64: W0 is a register')
check(group('a3.litmus', arm, 'ISHLD') == 'litmusFence', 'AArch64: ISHLD is a barrier option')
local native = {
  'litmus N',
  'shared sd = 0;',
  'thread P0 { let a0 = sd; }',
}
check(group('n.litmus', native, 'a0') ~= 'litmusRegister', 'native: a0 is no RISC-V register')
harness.finish()
