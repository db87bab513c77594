-- :LitmusShowExecution[!] [N]: asks the server for `litmus/executionGraph`
-- (violation N as `litmus check` numbers them, or `condition` — the SC
-- interleaving that breaks the final condition — or `failure:N`; without
-- N, the one whose "Show execution" lens is on the cursor's line, else a
-- choice), writes the SVG under stdpath('cache')/litmus/, and opens it with
-- the system viewer (`require('litmus').config.open`, else vim.ui.open or
-- xdg-open/open when there is a display; without one it says where the
-- file is and how to open it). With ! (or the word `whole`): the whole execution, the witness
-- run to the end (preferring an ending that fails an assertion).
-- The server's lenses run it too (client command `litmus.showExecution`).
local M = {}

-- The last picture written (for tests and `:edit`).
M.last = nil

--- Opens `path` the system's way (kept for configs that call it).
function M.system_open(path)
  return require('litmus').open_external(path)
end

--- The "Show execution" lenses of `bufnr`, to `cb(lenses)` (possibly empty).
function M.lenses(client, bufnr, cb)
  client.request('textDocument/codeLens', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, function(err, lenses)
    local shows = {}
    for _, l in ipairs((not err and lenses) or {}) do
      local c = l.command and l.command.command
      if c == 'litmus.showExecution' or c == 'litmus.server.showExecution' then
        table.insert(shows, l)
      end
    end
    cb(shows)
  end, bufnr)
end

--- The violation number of the lens on the cursor's line among `shows`, or nil.
function M.at_cursor(shows)
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  for _, l in ipairs(shows) do
    if l.range.start.line == line then
      return l.command.arguments[2]
    end
  end
end

--- `n` as the server takes it (a number, "condition", "failure:N"), or nil.
function M.which(n)
  if type(n) == 'number' then
    return (n >= 1 and n == math.floor(n)) and n or nil
  end
  if type(n) ~= 'string' then
    return nil
  end
  if n:match('^[1-9]%d*$') then
    return tonumber(n)
  end
  if n == 'condition' or n:match('^failure:%d+$') then
    return n
  end
  return nil
end

--- What `n` is in words ("violation 2", "the failing condition",
--- "failing statement 7") and in a file name ("violation-2", "condition",
--- "failure-7").
function M.describe(n)
  if type(n) == 'number' then
    return ('violation %d'):format(n), ('violation-%d'):format(n)
  end
  if n == 'condition' then
    return 'the failing condition', 'condition'
  end
  local stmt = n:match('^failure:(%d+)$') or '?'
  return 'failing statement ' .. stmt, 'failure-' .. stmt
end

local function open_graph(client, bufnr, n, whole)
  local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, violation = n, whole = whole == true }
  client.request('litmus/executionGraph', params, function(err, result)
    if err or not result then
      vim.notify('litmus: no execution to show: ' .. (err and err.message or 'no answer'), vim.log.levels.ERROR)
      return
    end
    -- Not under tempname(): Neovim deletes that folder when it exits, and
    -- the picture should outlive the session that drew it.
    local dir = vim.fn.stdpath('cache') .. '/litmus'
    vim.fn.mkdir(dir, 'p')
    local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':t:r')
    -- Whole when asked for and drawn (a condition's interleaving always
    -- runs to the end: it is the execution, not "the whole" of one).
    local whole_drawn = whole == true and result.whole == true
    local suffix = whole_drawn and '-whole' or ''
    local words, slug = M.describe(n)
    local path = ('%s/%s-%s%s.svg'):format(dir, name ~= '' and name or 'litmus', slug, suffix)
    vim.fn.writefile(vim.split(result.svg, '\n', { plain = true }), path, 'b')
    M.last = path
    -- Always say where it went: a viewer may not open, or open elsewhere.
    local what = whole_drawn and 'whole execution' or 'execution graph'
    require('litmus').open_external(path, ("litmus: %s's %s: %s"):format(words, what, path))
  end, bufnr)
end

function M.show(bufnr, n, whole)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = require('litmus').client(bufnr)
  if not client then
    vim.notify('litmus: the language server is not attached to this buffer', vim.log.levels.ERROR)
    return
  end
  if n ~= nil then
    local which = M.which(n)
    if which == nil then
      vim.notify(('litmus: no execution %s: a violation\'s number, `condition` or `failure:N`'):format(vim.inspect(n)), vim.log.levels.ERROR)
      return
    end
    return open_graph(client, bufnr, which, whole)
  end
  M.lenses(client, bufnr, function(shows)
    if #shows == 0 then
      vim.notify('litmus: no SC violation to show (yet) in this buffer', vim.log.levels.INFO)
      return
    end
    local here = M.at_cursor(shows)
    if here then
      return open_graph(client, bufnr, here, whole)
    end
    if #shows == 1 then
      return open_graph(client, bufnr, shows[1].command.arguments[2], whole)
    end
    vim.ui.select(shows, {
      prompt = 'Which violation?',
      format_item = function(l)
        return ('%s — line %d'):format(l.command.title, l.range.start.line + 1)
      end,
    }, function(l)
      if l then
        open_graph(client, bufnr, l.command.arguments[2], whole)
      end
    end)
  end)
end

-- The lenses' command, run by vim.lsp.codelens.run().
vim.lsp.commands['litmus.showExecution'] = function(command, ctx)
  M.show(ctx.bufnr, command.arguments and command.arguments[2])
end

return M
