-- :LitmusShowExecution[!] [N]: asks the server for `litmus/executionGraph`
-- (violation N as `litmus check` numbers them; without N, the one whose
-- "Show execution" lens is on the cursor's line, else a choice), writes the
-- SVG under stdpath('cache')/litmus/, says where, and opens it with the system viewer
-- (`require('litmus').config.open`, default vim.ui.open or xdg-open).
-- With ! (or the word `whole`): the whole execution, the witness run to the
-- end (preferring an ending that fails an assertion).
-- The server's lenses run it too (client command `litmus.showExecution`).
local M = {}

-- The last picture written (for tests and `:edit`).
M.last = nil

function M.system_open(path)
  if vim.ui and vim.ui.open then
    return vim.ui.open(path)
  end
  local cmd = vim.fn.has('mac') == 1 and 'open' or 'xdg-open'
  if vim.fn.executable(cmd) ~= 1 then
    vim.notify(('litmus: wrote %s (no %s to open it)'):format(path, cmd), vim.log.levels.WARN)
    return
  end
  vim.fn.jobstart({ cmd, path }, { detach = true })
end

local function litmus_client(bufnr)
  local list = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr, name = 'litmus' })
    or vim.lsp.buf_get_clients(bufnr)
  for _, c in pairs(list) do
    if c.name == 'litmus' then
      return c
    end
  end
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
    local suffix = result.whole and '-whole' or ''
    local path = ('%s/%s-violation-%d%s.svg'):format(dir, name ~= '' and name or 'litmus', n, suffix)
    vim.fn.writefile(vim.split(result.svg, '\n', { plain = true }), path, 'b')
    M.last = path
    -- Always say where it went: a viewer may not open, or open elsewhere.
    local what = result.whole and 'whole execution' or 'execution graph'
    vim.notify(('litmus: violation %d\'s %s: %s'):format(n, what, path), vim.log.levels.INFO)
    local open = require('litmus').config.open or M.system_open
    open(path)
  end, bufnr)
end

function M.show(bufnr, n, whole)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = litmus_client(bufnr)
  if not client then
    vim.notify('litmus: the language server is not attached to this buffer', vim.log.levels.ERROR)
    return
  end
  if n then
    return open_graph(client, bufnr, n, whole)
  end
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  client.request('textDocument/codeLens', { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, function(err, lenses)
    local shows = {}
    for _, l in ipairs((not err and lenses) or {}) do
      if l.command and l.command.command == 'litmus.showExecution' then
        table.insert(shows, l)
      end
    end
    if #shows == 0 then
      vim.notify('litmus: no SC violation to show (yet) in this buffer', vim.log.levels.INFO)
      return
    end
    for _, l in ipairs(shows) do
      if l.range.start.line == line then
        return open_graph(client, bufnr, l.command.arguments[2], whole)
      end
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
  end, bufnr)
end

-- The lenses' command, run by vim.lsp.codelens.run().
vim.lsp.commands['litmus.showExecution'] = function(command, ctx)
  M.show(ctx.bufnr, command.arguments and command.arguments[2])
end

return M
