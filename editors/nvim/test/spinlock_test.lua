-- Headless Neovim on a copy of examples/spinlock-early-release.litmus (an
-- xchg spinlock released one statement early: `forall (data == 2)` fails
-- under SC already, issue 44), through the LSP client as a user has it:
-- the error on the condition (E0305, severity ERROR) and the status line;
-- the lens "Show execution (SC): the condition fails" with its client
-- command, run by vim.lsp.codelens.run() and by :LitmusShowExecution on the
-- condition's line, each writing the SVG of the interleaving; completion
-- at a statement's start in a thread body (the statements, as snippets for
-- a client that takes them and as plain text for Neovim's defaults; never
-- `shared`/`thread`) and after `P1:` in the condition (P1's registers only;
-- the item's textEdit applied gives `P1:d`, never `P1:P1:`). What it sees
-- is printed to the log. Exits non-zero on any failure.
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
local litmus = require('litmus')
-- Snippets on, as a completion plugin (nvim-cmp with a snippet engine) asks
-- for them; Neovim 0.7's own capabilities say no (checked at the end).
local caps = vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), {
  textDocument = { completion = { completionItem = { snippetSupport = true } } },
})
litmus.setup({
  cmd = { bin, 'lsp' },
  settings = { debounceMs = 0 },
  capabilities = caps,
  open = function(path)
    table.insert(opened, path)
  end,
})

local TIMEOUT = 60000
local harness = dofile(root .. '/editors/nvim/test/harness.lua')
local check = harness.check
local say = harness.say
local finish = harness.finish

local SNIPPET_FORMAT = 2
local KIND_SNIPPET = 15

local function main()
  local example = root .. '/examples/spinlock-early-release.litmus'
  local source = vim.fn.readfile(example)
  -- Lines (0-based, as LSP and nvim_buf_* count) found in the example's text.
  local function line_of(text, nth)
    nth = nth or 1
    for i, l in ipairs(source) do
      if vim.trim(l) == text then
        nth = nth - 1
        if nth == 0 then
          return i - 1
        end
      end
    end
    error(('examples/spinlock-early-release.litmus has no line "%s"'):format(text))
  end
  local cond = line_of('forall (data == 2);')
  local p0_increment = line_of('data = d + 1;', 1)

  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  local path = dir .. '/spinlock-early-release.litmus'
  vim.fn.writefile(source, path)
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
  if not settled('the server checked spinlock-early-release.litmus') then
    return
  end
  local client = litmus.client(bufnr)

  -- The error on the condition.
  local function code_of(d)
    return d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  end
  local diags = vim.diagnostic.get(bufnr)
  for _, d in ipairs(diags) do
    say(('diagnostic: line %d, %s, %s: %s'):format(d.lnum + 1, vim.diagnostic.severity[d.severity], tostring(code_of(d)), d.message))
  end
  local on_cond = vim.tbl_filter(function(d) return code_of(d) == 'E0305' end, diags)
  check(#diags == 1 and #on_cond == 1, 'one diagnostic, E0305: ' .. #diags)
  local d = on_cond[1] or {}
  check(d.lnum == cond and d.col == 0, ('on the condition, line %d: %s'):format(cond + 1, tostring(d.lnum)))
  check(d.severity == vim.diagnostic.severity.ERROR, 'an error: ' .. tostring(d.severity))
  check((d.message or ''):find('`forall (data == 2)` fails under SC', 1, true) ~= nil, 'it says the condition fails under SC')
  check((d.message or ''):find("the program's own bug", 1, true) ~= nil, "the program's own bug")
  check(vim.api.nvim_buf_get_lines(bufnr, cond, cond + 1, false)[1] == 'forall (data == 2);', 'that line is the condition')

  -- The status line: the error mark and the server's headline.
  local s = litmus.status[uri]
  local line = litmus.statusline(bufnr)
  say('statusline: ' .. line)
  check(s.errors == 1 and s.headline == 'condition fails under SC', 'litmus/status: 1 error, "condition fails under SC": ' .. vim.inspect({ s.errors, s.headline }))
  check(line == '✗ litmus: condition fails under SC', 'statusline: ' .. line)

  -- The lenses: titles, and the condition's running the client command with "condition".
  local res = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeLens', { textDocument = { uri = uri } }, TIMEOUT) or {}
  local lenses = {}
  for _, r in pairs(res) do
    for _, l in ipairs(r.result or {}) do
      table.insert(lenses, l)
      say(('lens: line %d: %s (%s %s)'):format(l.range.start.line + 1, l.command and l.command.title or '?', l.command and l.command.command or '', vim.inspect(l.command and l.command.arguments)))
    end
  end
  local lens
  for _, l in ipairs(lenses) do
    if l.command and l.command.title == 'Show execution (SC): the condition fails' then
      lens = l
    end
  end
  check(lens ~= nil, 'a lens "Show execution (SC): the condition fails"')
  lens = lens or { range = { start = {} }, command = {} }
  check(lens.range.start.line == cond, 'above the condition')
  check(lens.command.command == 'litmus.showExecution' and vim.deep_equal(lens.command.arguments, { uri, 'condition' }), 'it runs litmus.showExecution with [uri, "condition"]')

  local function svg_of(n)
    if not vim.wait(20000, function() return #opened >= n end, 20) then
      return ''
    end
    return table.concat(vim.fn.readfile(opened[n], 'b'), '\n')
  end
  local function count(str, pat)
    local _, k = str:gsub(pat, '')
    return k
  end
  local function check_svg(svg, n, how)
    check(svg:match('^<svg xmlns="http://www.w3.org/2000/svg"') ~= nil, how .. ': an SVG file was opened')
    check((opened[n] or ''):match('/spinlock%-early%-release%-condition%.svg$') ~= nil, how .. ': written as …-condition.svg: ' .. tostring(opened[n]))
    check(svg:find('SpinlockEarlyRelease: the final condition fails under SC', 1, true) ~= nil, how .. ': titled "the final condition fails under SC"')
    check(count(svg, '<g class="event ') == 8, how .. ': the interleaving\'s eight events: ' .. count(svg, '<g class="event '))
    check(svg:find('data-line="' .. (p0_increment + 1) .. '"', 1, true) ~= nil, how .. ": P0's increment among them")
  end

  -- vim.lsp.codelens.run() on the condition's line: the lens's client command.
  vim.lsp.codelens.refresh()
  check(vim.wait(TIMEOUT, function() return #vim.lsp.codelens.get(bufnr) >= 2 end, 20), 'vim.lsp.codelens.refresh() got the lenses')
  vim.api.nvim_win_set_cursor(0, { cond + 1, 0 })
  vim.lsp.codelens.run()
  local svg = svg_of(1)
  check_svg(svg, 1, 'codelens.run()')
  say('codelens.run() wrote ' .. tostring(opened[1]) .. ' (' .. #svg .. ' bytes)')
  check(vim.tbl_contains(notified, ("litmus: the failing condition's execution graph: %s"):format(opened[1])), 'its path is announced: ' .. vim.inspect(notified))

  -- :LitmusShowExecution on the condition's line, then by name.
  vim.cmd('LitmusShowExecution')
  check_svg(svg_of(2), 2, ':LitmusShowExecution on the condition line')
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.cmd('LitmusShowExecution condition')
  check_svg(svg_of(3), 3, ':LitmusShowExecution condition')
  say(':LitmusShowExecution wrote ' .. tostring(opened[3]))
  -- With !: the whole execution is the same picture (the interleaving runs to the end).
  vim.cmd('LitmusShowExecution! condition')
  svg = svg_of(4)
  check((opened[4] or ''):match('%-condition%-whole%.svg$') ~= nil and svg:find('the final condition fails under SC', 1, true) ~= nil, ':LitmusShowExecution! condition: ' .. tostring(opened[4]))
  -- A word that is none of them is refused, and said.
  vim.cmd('LitmusShowExecution conditon')
  check(vim.wait(5000, function()
    for _, m in ipairs(notified) do
      if m:find('no execution "conditon"', 1, true) then
        return true
      end
    end
  end, 20) and #opened == 4, ':LitmusShowExecution conditon: refused, nothing written')

  -- Completion: the items at a position of the buffer as it is now.
  local function complete(row, col, context)
    local r = vim.lsp.buf_request_sync(bufnr, 'textDocument/completion', {
      textDocument = { uri = uri },
      position = { line = row, character = col },
      context = context or { triggerKind = 1 },
    }, TIMEOUT) or {}
    local by_client = {}
    for id, x in pairs(r) do
      local items = x.result and (x.result.items or x.result) or {}
      by_client[id] = items
    end
    return by_client
  end
  local function labels(items)
    return vim.tbl_map(function(i) return i.label end, items)
  end
  local function item(items, label)
    for _, i in ipairs(items) do
      if i.label == label then
        return i
      end
    end
  end

  -- At a statement's start in P0's body: a new line after its increment.
  vim.api.nvim_buf_set_lines(bufnr, p0_increment + 1, p0_increment + 1, false, { '  ' })
  local body = complete(p0_increment + 1, 2)[client.id] or {}
  say('in a thread body: ' .. table.concat(labels(body), ', '))
  for _, never in ipairs({ 'shared', 'thread', 'fn', 'exists', '~exists', 'forall' }) do
    check(item(body, never) == nil, 'no `' .. never .. '` in a thread body')
  end
  for _, want in ipairs({ 'let', 'if', 'while', 'for', 'await', 'assert', 'fence', 'return', 't', 'd', 'held', 'data', 'xchg' }) do
    check(item(body, want) ~= nil, '`' .. want .. '` offered')
  end
  for _, snip in ipairs({ 'if', 'while', 'for' }) do
    local i = item(body, snip) or {}
    check(i.kind == KIND_SNIPPET and i.insertTextFormat == SNIPPET_FORMAT, snip .. ': a Snippet item')
  end
  for _, snip in ipairs({ 'let', 'await', 'while' }) do
    local i = item(body, snip) or {}
    local text = i.textEdit and i.textEdit.newText or i.insertText or ''
    say(('%s: %s, detail "%s"'):format(snip, vim.inspect(text), tostring(i.detail)))
    check(i.insertTextFormat == SNIPPET_FORMAT and text:find('$', 1, true) ~= nil, snip .. ' is a snippet with tab stops: ' .. vim.inspect(text))
  end
  check(#vim.tbl_filter(function(i) return i.detail == nil or i.detail == '' or i.detail == 'keyword' end, body) == 0, 'every item says what it is (no bare "keyword")')
  -- Accepted: the snippet's text (as a snippet engine expands it) at the line.
  local w = item(body, 'while') or { textEdit = { newText = '' } }
  vim.lsp.util.apply_text_edits({ { range = w.textEdit.range, newText = vim.lsp.util.parse_snippet(w.textEdit.newText) } }, bufnr, client.offset_encoding)
  local got = vim.api.nvim_buf_get_lines(bufnr, p0_increment + 1, p0_increment + 4, false)
  say('while accepted: ' .. vim.inspect(got))
  check(got[1] == '  while () {' and vim.trim(got[2]) == '' and vim.trim(got[3]) == '}', 'the while block inserted at the statement')
  vim.api.nvim_buf_set_lines(bufnr, p0_increment + 1, p0_increment + 4, false, {})

  -- In the condition, after `P1:` (the trigger character), then after `P1:d`.
  local function set_cond(text)
    vim.api.nvim_buf_set_lines(bufnr, cond, cond + 1, false, { text })
  end
  set_cond('forall (data == 2 && P1:);')
  local col = #'forall (data == 2 && P1:'
  local after = complete(cond, col, { triggerKind = 2, triggerCharacter = ':' })[client.id] or {}
  say('after "P1:": ' .. vim.inspect(vim.tbl_map(function(i) return { i.label, i.detail } end, after)))
  check(vim.deep_equal(labels(after), { 't', 'd' }), "P1's registers only: " .. table.concat(labels(after), ', '))
  check(#vim.tbl_filter(function(i) return i.detail ~= 'register of P1' or i.preselect end, after) == 0, 'each a register of P1, none preselected')
  local t = item(after, 't')
  if t then
    vim.lsp.util.apply_text_edits({ t.textEdit }, bufnr, client.offset_encoding)
  end
  local cline = vim.api.nvim_buf_get_lines(bufnr, cond, cond + 1, false)[1]
  say('t accepted: ' .. cline)
  check(cline == 'forall (data == 2 && P1:t);', 'P1:t, no P1:P1:')
  -- With a prefix typed, as in the issue (`P1:r` then `r1` gave `P1:P1:r1`).
  set_cond('forall (data == 2 && P1:d);')
  local typed = complete(cond, col + 1)[client.id] or {}
  local dd = item(typed, 'd')
  check(dd ~= nil and dd.textEdit.range.start.character == col and dd.textEdit.range['end'].character == col + 1, 'the item replaces the typed `d` only: ' .. vim.inspect(dd and dd.textEdit, { newline = ' ', indent = '' }))
  if dd then
    vim.lsp.util.apply_text_edits({ dd.textEdit }, bufnr, client.offset_encoding)
  end
  cline = vim.api.nvim_buf_get_lines(bufnr, cond, cond + 1, false)[1]
  say('d accepted after "P1:d": ' .. cline)
  check(cline == 'forall (data == 2 && P1:d);' and not cline:find('P1:P1:', 1, true), 'P1:d, no P1:P1: and no P1:dd')
  if settled('the edited condition is checked') then
    local e = vim.tbl_filter(function(x) return code_of(x) == 'E0305' end, vim.diagnostic.get(bufnr))
    check(#e == 1 and e[1].lnum == cond, 'it still fails under SC, an error on its line')
  end

  -- Neovim 0.7's own capabilities (no snippetSupport): the same statements as plain text.
  local plain = vim.lsp.start_client({
    name = 'litmus-plain',
    cmd = { bin, 'lsp' },
    root_dir = dir,
    init_options = { debounceMs = 0 },
    capabilities = vim.lsp.protocol.make_client_capabilities(),
  })
  vim.lsp.buf_attach_client(bufnr, plain)
  vim.api.nvim_buf_set_lines(bufnr, p0_increment + 1, p0_increment + 1, false, { '  ' })
  -- (Until it has read the buffer; buf_request_sync waits itself, so not inside vim.wait.)
  local plain_items = {}
  for _ = 1, 100 do
    plain_items = complete(p0_increment + 1, 2)[plain] or {}
    if #plain_items > 0 then
      break
    end
    vim.wait(200)
  end
  say('without snippetSupport: ' .. table.concat(labels(plain_items), ', '))
  local w2 = item(plain_items, 'while') or {}
  say('without snippetSupport, while: ' .. vim.inspect(w2.textEdit and w2.textEdit.newText))
  check(#plain_items > 0 and item(plain_items, 'shared') == nil and item(plain_items, 'thread') == nil, 'without snippetSupport: statements, no shared/thread')
  check(#vim.tbl_filter(function(i) return i.insertTextFormat == SNIPPET_FORMAT or ((i.textEdit or {}).newText or ''):find('$', 1, true) end, plain_items) == 0, 'without snippetSupport: plain text only')
  vim.lsp.stop_client(plain)
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  check(false, 'no Lua error: ' .. tostring(err))
end
finish()
