-- Headless Neovim: the plugin's commands beyond the LSP basics, on a copy of
-- examples/sb.litmus. The client commands sent at initialize (the lenses run
-- `litmus.showExecution`); require('litmus').statusline() and :LitmusStatus
-- from the buffer's own last status (never a ✓ with errors; nothing for a
-- buffer that is not litmus); :LitmusShowExecution opening the SVG with
-- xdg-open when there is a display, else saying where it is and how to open
-- it; :LitmusExplain's Markdown in a split; window/showDocument;
-- :LitmusInsertFences; :LitmusRestart. Exits non-zero on any failure.
local root = assert(os.getenv('LITMUS_ROOT'), 'LITMUS_ROOT')
local bin = assert(os.getenv('LITMUS_BIN'), 'LITMUS_BIN')
vim.opt.runtimepath:prepend(root .. '/editors/nvim')
vim.cmd('filetype on')
vim.cmd('runtime! plugin/litmus.lua')
local notified = {}
vim.notify = function(msg)
  table.insert(notified, msg)
end
local litmus = require('litmus')
litmus.setup({ cmd = { bin, 'lsp' }, settings = { debounceMs = 0 } })

local TIMEOUT = 60000
local harness = dofile(root .. '/editors/nvim/test/harness.lua')
local check = harness.check
local finish = harness.finish
local function notified_matching(pat)
  for _, m in ipairs(notified) do
    if m:find(pat) then
      return m
    end
  end
end

-- A Lua error fails the test at once (not at run.sh's timeout).
local function main()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local path = dir .. '/sb.litmus'
  vim.fn.writefile(vim.fn.readfile(root .. '/examples/sb.litmus'), path)
  vim.cmd('edit ' .. path)
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(bufnr)

  local function version()
    return (vim.lsp.util.buf_versions or {})[bufnr] or vim.api.nvim_buf_get_changedtick(bufnr)
  end
  local function settled(what)
    local ok = vim.wait(TIMEOUT, function()
      local s = litmus.status[uri]
      return s ~= nil and s.state == 'checked' and s.version == version()
    end, 20)
    check(ok, what)
    return ok
  end

  for _, cmd in ipairs({ 'LitmusShowExecution', 'LitmusExplain', 'LitmusInsertFences', 'LitmusRecheck', 'LitmusRestart', 'LitmusStatus', 'LitmusPort' }) do
    check(vim.fn.exists(':' .. cmd) == 2, ':' .. cmd .. ' exists')
  end
  if not settled('the server checked sb.litmus') then
    return finish()
  end

  -- initializationOptions: the settings and the client commands.
  local client = litmus.client(bufnr)
  check(vim.deep_equal(client.config.init_options.clientCommands, { 'litmus.showExecution' }), 'clientCommands sent: ' .. vim.inspect(client.config.init_options))
  check(client.config.init_options.debounceMs == 0, 'the settings still sent')
  check(client.config.capabilities.window.showDocument.support == true, 'window/showDocument offered (handled by the plugin)')
  local lenses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeLens', { textDocument = { uri = uri } }, TIMEOUT) or {}
  local lens_cmds = {}
  for _, r in pairs(lenses) do
    for _, l in ipairs(r.result or {}) do
      if l.command and l.command.title:match('^Show execution') then
        lens_cmds[l.command.command] = true
      end
    end
  end
  check(vim.deep_equal(vim.tbl_keys(lens_cmds), { 'litmus.showExecution' }), 'the lenses run the client command: ' .. vim.inspect(lens_cmds))

  -- The status: the server's counts, never a ✓ with errors.
  local s = litmus.status[uri]
  check(s.errors == 2 and s.warnings ~= nil and type(s.headline) == 'string' and s.headline ~= '', 'litmus/status has errors, warnings, headline: ' .. vim.inspect(s))
  local line = litmus.statusline(bufnr)
  check(line == '✗ litmus: ' .. tostring(s.headline), 'statusline: ' .. line)
  -- As the README puts it in 'statusline'.
  local drawn = vim.api.nvim_eval_statusline("%{v:lua.require'litmus'.statusline()}", {}).str
  check(drawn == line, "the README's 'statusline' item draws it: " .. drawn)
  local out = vim.api.nvim_exec('LitmusStatus', true)
  check(out:find('✗ litmus: ', 1, true) ~= nil and out:find('2 errors', 1, true) ~= nil, ':LitmusStatus: the headline and counts: ' .. out)
  check(out:find('state: checked', 1, true) ~= nil and out:find('server: running (client ' .. client.id, 1, true) ~= nil, ':LitmusStatus: state and server: ' .. out)
  -- A second litmus file: its own status, and sb's stays sb's.
  vim.fn.writefile(vim.fn.readfile(root .. '/examples/mp.litmus'), dir .. '/mp.litmus')
  vim.cmd('split ' .. dir .. '/mp.litmus')
  local mp = vim.api.nvim_get_current_buf()
  local mp_uri = vim.uri_from_bufnr(mp)
  local mp_checked = vim.wait(TIMEOUT, function()
    local m = litmus.status[mp_uri]
    return m ~= nil and m.state == 'checked'
  end, 20)
  local mps = litmus.status[mp_uri] or {}
  local mark = (mps.errors or 0) > 0 and '✗' or (mps.warnings or 0) > 0 and '⚠' or '✓'
  check(mp_checked and litmus.statusline(mp) == mark .. ' litmus: ' .. tostring(mps.headline), 'mp.litmus: its own statusline: ' .. litmus.statusline(mp))
  check(litmus.statusline(mp) ~= line and litmus.statusline(bufnr) == line, "sb.litmus's unchanged beside it: " .. litmus.statusline(bufnr))
  vim.cmd('close')
  -- Another buffer: its own (none), not sb's.
  vim.cmd('split ' .. dir .. '/notes.txt')
  local txt = vim.api.nvim_get_current_buf()
  check(litmus.statusline(txt) == '', 'statusline of a .txt buffer is empty')
  check(vim.api.nvim_exec('LitmusStatus', true):find('not a litmus file', 1, true) ~= nil, ':LitmusStatus in a .txt buffer')
  vim.cmd('close')
  -- The logic alone: errors beat every other state.
  check(litmus.mark({ state = 'checked', errors = 1, warnings = 0 }) == '✗', 'an error is ✗ even when checked')
  check(litmus.mark({ state = 'checked', errors = 0, warnings = 0, incomplete = true }) == '⚠', 'an unknown answer is ⚠')
  check(litmus.mark({ state = 'checking', errors = 3 }) == '…', 'busy while checking')
  check(litmus.headline({ state = 'analyzed', errors = 3, warnings = 0 }) == '3 errors — not checked', 'headline without the server\'s')

  -- :LitmusShowExecution: no display → the path and a hint, nothing run.
  vim.env.DISPLAY = ''
  vim.env.WAYLAND_DISPLAY = ''
  vim.cmd('LitmusShowExecution 1')
  local said = vim.wait(10000, function() return notified_matching('no display here') ~= nil end, 20)
  local msg = notified_matching('no display here') or ''
  local svg = require('litmus.execution').last or '?'
  check(said and msg:find(svg, 1, true) ~= nil and msg:find('setup{}', 1, true) ~= nil, 'no display: the path and a hint: ' .. msg)
  -- With a display: xdg-open gets the path.
  local fakebin = dir .. '/bin'
  vim.fn.mkdir(fakebin, 'p')
  local record = dir .. '/xdg-open.args'
  vim.fn.writefile({ '#!/bin/sh', 'echo "$@" > ' .. record }, fakebin .. '/xdg-open')
  vim.fn.setfperm(fakebin .. '/xdg-open', 'rwxr-xr-x')
  vim.env.PATH = fakebin .. ':' .. vim.env.PATH
  vim.env.DISPLAY = ':99'
  vim.cmd('LitmusShowExecution 2')
  local opened = vim.wait(10000, function() return vim.fn.filereadable(record) == 1 end, 20)
  local arg = opened and vim.fn.readfile(record)[1] or ''
  check(opened and arg:match('sb%-violation%-2%.svg$') ~= nil, 'xdg-open opens the SVG: ' .. arg)
  check(notified_matching("violation 2's execution graph: ") ~= nil, 'and its path is said')

  -- window/showDocument: Markdown in a split, external with the opener.
  local md = dir .. '/shown.md'
  vim.fn.writefile({ '# shown', '', 'text' }, md)
  local wins = #vim.api.nvim_list_wins()
  local r = litmus.handlers['window/showDocument'](nil, { uri = vim.uri_from_fname(md) }, {})
  check(r.success == true and #vim.api.nvim_list_wins() == wins + 1 and vim.bo.filetype == 'markdown', 'showDocument: Markdown in a split')
  litmus.handlers['window/showDocument'](nil, { uri = vim.uri_from_fname(md) }, {})
  check(#vim.api.nvim_list_wins() == wins + 1, 'shown again: the same window')
  vim.cmd('close')
  local ext = {}
  litmus.config.open = function(p) table.insert(ext, p) end
  litmus.handlers['window/showDocument'](nil, { uri = vim.uri_from_fname(dir .. '/x.svg'), external = true }, {})
  check(ext[1] == dir .. '/x.svg', 'showDocument external: the opener')
  litmus.config.open = nil
  vim.api.nvim_set_current_buf(bufnr)

  -- :LitmusExplain 1: the explanation in a Markdown split.
  wins = #vim.api.nvim_list_wins()
  vim.cmd('LitmusExplain 1')
  local split = vim.wait(20000, function() return #vim.api.nvim_list_wins() == wins + 1 end, 20)
  local ebuf = vim.api.nvim_get_current_buf()
  local text = table.concat(vim.api.nvim_buf_get_lines(ebuf, 0, -1, false), '\n')
  check(split and vim.bo[ebuf].filetype == 'markdown' and text:find('x = 1', 1, true) ~= nil, ':LitmusExplain 1 opens the Markdown in a split: ' .. text:sub(1, 200))
  if split then
    vim.cmd('close')
  end
  vim.api.nvim_set_current_buf(bufnr)

  -- :LitmusPort sc x86tso.cat: what moving SB from SC to x86-TSO changes, in a Markdown split.
  local cmds = require('litmus.commands')
  cmds.last_port = nil
  vim.cmd('LitmusPort sc x86tso.cat')
  local function port_window()
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      if vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)):match('port%-sc%-x86tso%.md$') then
        return w
      end
    end
  end
  local ported = vim.wait(20000, function() return cmds.last_port ~= nil and port_window() ~= nil end, 20)
  local pwin = port_window()
  local pbuf = pwin and vim.api.nvim_win_get_buf(pwin)
  local ptext = pbuf and table.concat(vim.api.nvim_buf_get_lines(pbuf, 0, -1, false), '\n') or ''
  check(
    ported and vim.bo[pbuf].filetype == 'markdown' and ptext:find('executions: not robust against SC under x86tso (proved)', 1, true) ~= nil,
    ':LitmusPort sc x86tso.cat opens the report in a split: ' .. ptext:sub(1, 200)
  )
  if pwin then
    vim.api.nvim_win_close(pwin, true)
  end
  vim.api.nvim_set_current_buf(bufnr)

  -- :LitmusInsertFences: the server applies the minimal fences; the re-check is clean.
  vim.cmd('LitmusInsertFences')
  local fenced = vim.wait(20000, function()
    return #vim.tbl_filter(function(l) return l:match('^%s*fence') end, vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) >= 2
  end, 20)
  check(fenced, 'the fences are in the buffer')
  check(vim.wait(10000, function() return notified_matching('^litmus: inserted %d+ fences?$') ~= nil end, 20), 'and said: ' .. vim.inspect(notified))
  if settled('the fenced text is re-checked') then
    check(litmus.status[uri].errors == 0, 'no error left: ' .. vim.inspect(litmus.status[uri]))
    check(litmus.statusline(bufnr):match('^✗') == nil, 'statusline without ✗: ' .. litmus.statusline(bufnr))
  end

  -- :LitmusRestart: a new client, the buffer checked again.
  local old = litmus.client(bufnr).id
  vim.cmd('LitmusRestart')
  local restarted = vim.wait(TIMEOUT, function()
    local c = litmus.client(bufnr)
    return c ~= nil and c.id ~= old and vim.lsp.get_client_by_id(old) == nil
  end, 20)
  check(restarted, ':LitmusRestart: a new client replaces the old one')
  if restarted then
    settled('checked again after the restart')
    check(notified_matching('^litmus: server restarted') ~= nil, 'restart said')
  end
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  check(false, 'no Lua error: ' .. tostring(err))
end
finish()
