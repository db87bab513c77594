-- The server's commands, run by workspace/executeCommand:
-- :LitmusExplain [N] (`litmus.server.explain`: the explanation's Markdown in
-- a split; without N, the violation whose lens is on the cursor's line, else
-- the first finding worth explaining), :LitmusInsertFences
-- (`litmus.server.insertAllFences`: the server applies the edit itself) and
-- :LitmusRecheck (`litmus.server.recheck`), :LitmusPort FROM TO
-- (`litmus.server.port`: what moving the program from one model to another
-- changes, as Markdown in a split).
local M = {}

local function client_or_complain(bufnr)
  local c = require('litmus').client(bufnr)
  if not c then
    local why = require('litmus').problem
    vim.notify('litmus: the language server is not attached to this buffer' .. (why and (': ' .. why) or ''), vim.log.levels.ERROR)
  end
  return c
end

--- Runs server command `command` with `args`; `cb(result)` on success.
function M.execute(bufnr, command, args, cb)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local c = client_or_complain(bufnr)
  if not c then
    return
  end
  c.request('workspace/executeCommand', { command = command, arguments = args }, function(err, result)
    if err then
      vim.notify(('litmus: %s: %s'):format(command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if cb then
      cb(result)
    end
  end, bufnr)
end

-- The last explanation (for tests): { markdown, path }.
M.last_explanation = nil

--- Shows Markdown `r` ({ markdown, path }) from the server: its file, else a scratch split.
local function show_markdown(r)
  if r.path and vim.fn.filereadable(r.path) == 1 then
    require('litmus').open_markdown(r.path)
    return
  end
  vim.cmd('new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(r.markdown or '', '\n', { plain = true }))
  vim.bo[buf].filetype = 'markdown'
  vim.bo[buf].modifiable = false
end

local function explain_n(bufnr, n)
  local args = { vim.uri_from_bufnr(bufnr) }
  if n then
    table.insert(args, n)
  end
  M.execute(bufnr, 'litmus.server.explain', args, function(r)
    if not r then
      return vim.notify('litmus: nothing to explain', vim.log.levels.INFO)
    end
    M.last_explanation = r
    show_markdown(r)
  end)
end

-- The last port report (for tests): { markdown, path, robust, certainty }.
M.last_port = nil

--- What moving the buffer's program from model `from` (the one it was
--- written for) to model `to` changes; `done(result)` after it is shown.
function M.port(bufnr, from, to, done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  M.execute(bufnr, 'litmus.server.port', { vim.uri_from_bufnr(bufnr), from, to }, function(r)
    M.last_port = r
    if r then
      show_markdown(r)
    end
    if done then
      done(r)
    end
  end)
end

function M.explain(bufnr, n)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if n ~= nil then
    local which = require('litmus.execution').which(n)
    if which == nil then
      vim.notify(('litmus: nothing to explain as %s: a violation\'s number, `condition` or `failure:N`'):format(vim.inspect(n)), vim.log.levels.ERROR)
      return
    end
    return explain_n(bufnr, which)
  end
  local c = client_or_complain(bufnr)
  if not c then
    return
  end
  local ex = require('litmus.execution')
  ex.lenses(c, bufnr, function(shows)
    explain_n(bufnr, ex.at_cursor(shows))
  end)
end

function M.insert_fences(bufnr, done)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  M.execute(bufnr, 'litmus.server.insertAllFences', { vim.uri_from_bufnr(bufnr) }, function(r)
    r = r or {}
    if (r.fences or 0) == 0 then
      vim.notify('litmus: no fences to insert (no violation with a confirmed fix)', vim.log.levels.INFO)
    elseif not r.applied then
      vim.notify(('litmus: %d fence(s) not inserted: the edit was refused'):format(r.fences), vim.log.levels.WARN)
    else
      vim.notify(('litmus: inserted %d fence%s'):format(r.fences, r.fences == 1 and '' or 's'), vim.log.levels.INFO)
    end
    if done then
      done(r)
    end
  end)
end

function M.recheck(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  M.execute(bufnr, 'litmus.server.recheck', { vim.uri_from_bufnr(bufnr) })
end

return M
