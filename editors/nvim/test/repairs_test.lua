-- Headless Neovim end to end, under the models decided on whole
-- candidates: an AArch64 test and a C11 test (non-ASCII comments before the
-- statements a repair changes). Each gets its violations as diagnostics, a
-- hover with the cycle and the cheapest repair, a quick fix changing an
-- instruction (LDR → LDAPR, STR → STLR) or a memory order (relaxed →
-- release/acquire, or `@relaxed` → `@release`/`@acquire` in the native
-- dialect, whose data race is shown too), and "Apply the cheapest repair",
-- after which the re-check leaves no violation. Exits non-zero on any failure.
local root = assert(os.getenv('LITMUS_ROOT'), 'LITMUS_ROOT')
local bin = assert(os.getenv('LITMUS_BIN'), 'LITMUS_BIN')
vim.opt.runtimepath:prepend(root .. '/editors/nvim')
vim.cmd('filetype on')
vim.cmd('runtime! plugin/litmus.lua')
require('litmus').setup({ cmd = { bin, 'lsp' }, settings = { debounceMs = 0 } })

local TIMEOUT = 60000
local harness = dofile(root .. '/editors/nvim/test/harness.lua')
local check = harness.check
local finish = harness.finish

local files = {
  {
    name = 'mp-arm.litmus',
    model = 'aarch64',
    lines = {
      'AArch64 MP',
      '"message passing — drapeau ≠ données"',
      '{',
      '0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x;',
      '}',
      ' P0          | P1          ;',
      ' MOV W0,#1   | LDR W0,[X1] ;',
      ' STR W0,[X1] | LDR W2,[X3] ;',
      ' MOV W2,#1   |             ;',
      ' STR W2,[X3] |             ;',
      'exists (1:X0=1 /\\ 1:X2=0)',
    },
    quick = '^Change `',
    fixed = { 'STLR W2,[X3]', 'LDAPR W0,[X1]' },
  },
  {
    name = 'mp-c11.litmus',
    model = 'rc11',
    lines = {
      'C MP',
      '{ [x] = 0; [y] = 0; }',
      '',
      'P0 (atomic_int* x, atomic_int* y) {',
      '  atomic_store_explicit(x, 1, memory_order_relaxed);',
      '  /* données ≠ drapeau */ atomic_store_explicit(y, 1, memory_order_relaxed);',
      '}',
      '',
      'P1 (atomic_int* x, atomic_int* y) {',
      '  /* drapeau → données */ int r0 = atomic_load_explicit(y, memory_order_relaxed);',
      '  int r1 = atomic_load_explicit(x, memory_order_relaxed);',
      '}',
      '',
      'exists (1:r0=1 /\\ 1:r1=0)',
    },
    quick = '^Change `',
    fixed = {
      '/* données ≠ drapeau */ atomic_store_explicit(y, 1, memory_order_release);',
      '/* drapeau → données */ int r0 = atomic_load_explicit(y, memory_order_acquire);',
    },
  },
  {
    -- The native dialect with memory orders: C11's models by default, the
    -- race on the plain location shown (E0306), the repair as `@order`s.
    name = 'mp-native.litmus',
    model = 'rc11',
    lines = {
      'litmus MP "drapeau → données"',
      '',
      'shared données = 0;',
      'atomic drapeau = 0;',
      '',
      'thread P0 {',
      '  données = 1; /* é */ drapeau@relaxed = 1;',
      '}',
      '',
      'thread P1 {',
      '  let r0 = drapeau@relaxed; /* → */ let r1 = données;',
      '}',
      '',
      'exists (P1:r0 == 1 && P1:r1 == 0);',
    },
    quick = '^Change `',
    race = true,
    fixed = { '/* é */ drapeau@release = 1;', 'let r0 = drapeau@acquire; /* → */' },
  },
}

local function client()
  return vim.tbl_filter(function(c) return c.name == 'litmus' end, vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients())[1]
end

local function code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end

local dir = vim.fn.tempname()
vim.fn.mkdir(dir, 'p')
for _, f in ipairs(files) do
  local path = dir .. '/' .. f.name
  vim.fn.writefile(f.lines, path)
  vim.cmd('edit ' .. path)
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(bufnr)
  local function version()
    return (vim.lsp.util.buf_versions or {})[bufnr] or vim.api.nvim_buf_get_changedtick(bufnr)
  end
  local function settled(what)
    local ok = vim.wait(TIMEOUT, function()
      local s = require('litmus').status[uri]
      return s ~= nil and s.state == 'checked' and s.version == version()
    end, 20)
    check(ok, f.name .. ': ' .. what)
    return ok
  end
  local function violations()
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if code_of(d) == 'E0400' and d.message:find('^' .. f.model .. ':') then
        table.insert(out, d)
      end
    end
    return out
  end
  local function request(method, params)
    local res = vim.lsp.buf_request_sync(bufnr, method, params, TIMEOUT) or {}
    for _, r in pairs(res) do
      if r.result then
        return r.result
      end
    end
  end
  local function apply(action)
    if action and action.edit then
      vim.lsp.util.apply_workspace_edit(action.edit, client().offset_encoding)
    end
  end

  if not settled('the first check finishes') then
    return finish()
  end
  local vs = violations()
  check(#vs > 0, f.name .. ': ' .. f.model .. ' violations shown')
  if f.race then
    local races = vim.tbl_filter(function(d) return code_of(d) == 'E0306' end, vim.diagnostic.get(bufnr))
    check(#races > 0 and races[1].message:find('races with', 1, true) ~= nil, f.name .. ': the data race is shown: ' .. vim.inspect(vim.tbl_map(function(d) return d.message end, vim.diagnostic.get(bufnr))))
  end
  local hover = request('textDocument/hover', { textDocument = { uri = uri }, position = { line = vs[1].lnum, character = vs[1].col } })
  local text = hover and hover.contents.value or ''
  check(text:find('cycle', 1, true) ~= nil and text:find('cheapest repair', 1, true) ~= nil, f.name .. ': hover with the cycle and the repair: ' .. text)
  local titles, whole = {}, nil
  for _, d in ipairs(vs) do
    local actions = request('textDocument/codeAction', {
      textDocument = { uri = uri },
      range = { start = { line = d.lnum, character = 0 }, ['end'] = { line = d.lnum, character = 0 } },
      context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(bufnr, d.lnum) },
    }) or {}
    for _, a in ipairs(actions) do
      table.insert(titles, a.title)
      if a.title:match('^Apply the cheapest repair') then
        whole = a
      end
    end
  end
  local quick = vim.tbl_filter(function(t) return t:match(f.quick) ~= nil end, titles)
  check(#quick > 0, f.name .. ': a quick fix changes an access: ' .. vim.inspect(titles))
  check(whole ~= nil, f.name .. ': a source action applies the cheapest repair: ' .. vim.inspect(titles))
  apply(whole)
  local buf = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
  for _, want in ipairs(f.fixed) do
    check(buf:find(want, 1, true) ~= nil, f.name .. ': the buffer has `' .. want .. '`: ' .. buf)
  end
  if settled('the repaired text is re-checked') then
    check(#violations() == 0, f.name .. ': no violation left: ' .. vim.inspect(vim.tbl_map(function(d) return d.message end, violations())))
  end
end
finish()
