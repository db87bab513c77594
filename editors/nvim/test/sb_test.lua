-- Headless Neovim end to end: the plugin starts `litmus lsp` on a copy of
-- examples/sb.litmus; TSO diagnostics on both threads; a hover with the
-- cycle; one quick fix removes its violation only; "Insert all minimal
-- fences" removes every TSO diagnostic. Exits non-zero on any failure.
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

local dir = vim.fn.tempname()
vim.fn.mkdir(dir, 'p')
local path = dir .. '/sb.litmus'
vim.fn.writefile(vim.fn.readfile(root .. '/examples/sb.litmus'), path)
vim.cmd('edit ' .. path)
local bufnr = vim.api.nvim_get_current_buf()
check(vim.bo[bufnr].filetype == 'litmus', 'ftdetect sets filetype=litmus')
local uri = vim.uri_from_bufnr(bufnr)

local function version()
  return (vim.lsp.util.buf_versions or {})[bufnr] or vim.api.nvim_buf_get_changedtick(bufnr)
end

-- Wait until the server has checked the buffer's current text.
local function settled(what)
  local ok = vim.wait(TIMEOUT, function()
    local s = require('litmus').status[uri]
    return s ~= nil and s.state == 'checked' and s.version == version()
  end, 20)
  check(ok, what)
  return ok
end

local function code_of(d)
  return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
end

local function tso_lines()
  local lines = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if code_of(d) == 'E0400' and d.message:match('^[%u, ]*TSO[%u, ]*:') then
      table.insert(lines, d.lnum)
    end
  end
  table.sort(lines)
  return lines
end

-- The other statements of a cycle: hints naming their role.
local function member_lines()
  local lines = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if code_of(d) == 'E0400' and d.message:find('part of the', 1, true) then
      check(d.severity == vim.diagnostic.severity.HINT, 'a member is a hint: ' .. d.message)
      table.insert(lines, d.lnum)
    end
  end
  table.sort(lines)
  return lines
end

local function client()
  return vim.lsp.get_active_clients({ name = 'litmus' })[1]
    or vim.tbl_filter(function(c) return c.name == 'litmus' end, vim.lsp.get_active_clients())[1]
end

local function apply(action)
  local c = client()
  if action.edit then
    vim.lsp.util.apply_workspace_edit(action.edit, c.offset_encoding)
  end
end

local function code_actions(range_line, only)
  local diags = {}
  if range_line then
    diags = vim.lsp.diagnostic.get_line_diagnostics(bufnr, range_line)
  end
  local params = {
    textDocument = { uri = uri },
    range = { start = { line = range_line or 0, character = 0 }, ['end'] = { line = range_line or 0, character = 0 } },
    context = { diagnostics = diags, only = only },
  }
  local res = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, TIMEOUT) or {}
  local out = {}
  for _, r in pairs(res) do
    for _, a in ipairs(r.result or {}) do
      table.insert(out, a)
    end
  end
  return out
end

if not settled('the first check finishes') then
  return finish()
end
-- Errors sort above the cycle members' hints on a shared line.
local ns = client() and vim.lsp.diagnostic.get_namespace(client().id)
check(ns ~= nil and vim.diagnostic.config(nil, ns).severity_sort == true, 'severity_sort on litmus diagnostics')
print('     (position encoding negotiated: ' .. tostring(client().offset_encoding) .. ')')
check(vim.deep_equal(tso_lines(), { 7, 12 }), 'TSO diagnostics on both threads: ' .. vim.inspect(tso_lines()))
check(vim.deep_equal(member_lines(), { 8, 12, 13 }), 'every other statement of the cycle marked: ' .. vim.inspect(member_lines()))
for _, d in ipairs(vim.diagnostic.get(bufnr, { lnum = 8 })) do
  if code_of(d) == 'E0400' then
    check(d.message:find("reads y before P1's `y = 1` overwrites it", 1, true) ~= nil, 'the role in words: ' .. d.message)
  end
end

local hover = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', {
  textDocument = { uri = uri },
  position = { line = 7, character = 3 },
}, TIMEOUT) or {}
local text = ''
for _, r in pairs(hover) do
  if r.result then
    text = r.result.contents.value
  end
end
check(text:find('**TSO/PSO cycle**', 1, true) ~= nil and text:find('—fr→', 1, true) ~= nil, 'hover shows the cycle')

local fixes = code_actions(7, { 'quickfix' })
check(#fixes == 1 and fixes[1].title == 'Insert `fence wr` after line 8', 'one quick fix: ' .. vim.inspect(vim.tbl_map(function(a) return a.title end, fixes)))
if fixes[1] then
  apply(fixes[1])
end
check(vim.api.nvim_buf_get_lines(bufnr, 8, 9, false)[1] == '  fence wr;', 'the fence is in the buffer')
if settled('the fixed text is re-checked') then
  check(vim.deep_equal(tso_lines(), { 13 }), "P0's violation is gone, P1's stays: " .. vim.inspect(tso_lines()))
end

local all = code_actions(nil, { 'source.litmus.insertFences' })
check(#all == 1 and all[1].title:match('^Insert all minimal fences') ~= nil, 'a source action inserts all fences')
if all[1] then
  apply(all[1])
end
if settled('the fully fenced text is re-checked') then
  check(#tso_lines() == 0, 'no TSO diagnostic left: ' .. vim.inspect(tso_lines()))
  check(#member_lines() == 0, 'no cycle member left: ' .. vim.inspect(member_lines()))
end
finish()
