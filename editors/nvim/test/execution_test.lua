-- Headless Neovim: :LitmusShowExecution writes the SVG of a violation and
-- hands it to the opener (stubbed here; vim.ui.open/xdg-open in use), by
-- number, by the lens on the cursor's line, and through the lens command.
local root = assert(os.getenv('LITMUS_ROOT'), 'LITMUS_ROOT')
local bin = assert(os.getenv('LITMUS_BIN'), 'LITMUS_BIN')
vim.opt.runtimepath:prepend(root .. '/editors/nvim')
vim.cmd('filetype on')
vim.cmd('runtime! plugin/litmus.lua')
local opened = {}
local notified = {}
vim.notify = function(msg)
  table.insert(notified, msg)
end
require('litmus').setup({
  cmd = { bin, 'lsp' },
  settings = { debounceMs = 0 },
  open = function(path)
    table.insert(opened, path)
  end,
})

local TIMEOUT = 60000
local harness = dofile(root .. '/editors/nvim/test/harness.lua')
local check = harness.check

local dir = vim.fn.tempname()
vim.fn.mkdir(dir, 'p')
local path = dir .. '/sb.litmus'
vim.fn.writefile(vim.fn.readfile(root .. '/examples/sb.litmus'), path)
vim.cmd('edit ' .. path)
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)
check(vim.fn.exists(':LitmusShowExecution') == 2, ':LitmusShowExecution exists')
check(vim.wait(TIMEOUT, function()
  local s = require('litmus').status[uri]
  return s ~= nil and s.state == 'checked'
end, 20), 'the server checked sb.litmus')

local function svg_of(n_opened)
  if not vim.wait(10000, function() return #opened >= n_opened end, 20) then
    return ''
  end
  return table.concat(vim.fn.readfile(opened[n_opened], 'b'), '\n')
end
local function count(s, pat)
  local _, k = s:gsub(pat, '')
  return k
end

vim.cmd('LitmusShowExecution 2')
local svg = svg_of(1)
check(svg:match('^<svg xmlns="http://www.w3.org/2000/svg"') ~= nil, 'violation 2: an SVG file was opened')
check(opened[1]:match('%.svg$') ~= nil and opened[1] == require('litmus.execution').last, 'written to a .svg file')
-- Where Neovim does not delete it on exit (not under tempname()), and said.
local cache = vim.fn.stdpath('cache') .. '/litmus/'
check(opened[1]:sub(1, #cache) == cache, 'kept under stdpath("cache")/litmus: ' .. opened[1])
check(vim.tbl_contains(notified, ("litmus: violation 2's execution graph: %s"):format(opened[1])), 'its path is announced: ' .. vim.inspect(notified))
check(count(svg, '<g class="event ') == 4 and count(svg, 'data%-cycle="') == 4, 'four events, four cycle edges')
check(svg:find('let r1 = x', 1, true) ~= nil and svg:find('under TSO', 1, true) ~= nil, 'statement text and model')

-- No number: the lens on the cursor's line (P0's store, line 8).
vim.api.nvim_win_set_cursor(0, { 8, 2 })
vim.cmd('LitmusShowExecution')
svg = svg_of(2)
check(svg:find('`x = 1` (P0 line 8) is delayed', 1, true) ~= nil, "without a number: the cursor line's violation")

-- The lens's client command, as vim.lsp.codelens.run() calls it.
vim.lsp.commands['litmus.showExecution']({ command = 'litmus.showExecution', arguments = { uri, 1 } }, { bufnr = bufnr })
svg = svg_of(3)
check(svg:find('violation 1 under TSO', 1, true) ~= nil, 'the lens command opens violation 1')

-- With !: the whole execution, in a file of its own, said so.
vim.cmd('LitmusShowExecution! 1')
svg = svg_of(4)
check(svg:find('violation 1 under TSO (whole execution)', 1, true) ~= nil, ':LitmusShowExecution! draws the whole execution')
check(opened[4]:match('%-violation%-1%-whole%.svg$') ~= nil, 'written beside the other: ' .. opened[4])
check(vim.tbl_contains(notified, ("litmus: violation 1's whole execution: %s"):format(opened[4])), 'announced as the whole execution')

harness.finish()
