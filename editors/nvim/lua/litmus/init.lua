-- Starts `litmus lsp` for litmus buffers: vim.lsp.start on Neovim 0.8+,
-- vim.lsp.start_client + buf_attach_client on 0.7 (one client per root).
-- Keeps each buffer's last `litmus/status` (for :LitmusStatus and
-- statusline()), opens what the server shows (window/showDocument: the
-- explanation's Markdown in a split, a picture with the system viewer), and
-- restarts the server (:LitmusRestart).
local M = {}

M.config = {
  cmd = { 'litmus', 'lsp' },
  -- The server's settings: models, loopBound, preemptionBound, bufferBound,
  -- monitor, timeout, debounceMs, cycleMembers ("information", "hint",
  -- "off"), codesUrl.
  settings = {},
  root_markers = { '.git' },
  on_attach = nil,
  capabilities = nil,
  -- How :LitmusShowExecution opens the SVG it wrote: function(path); nil:
  -- vim.ui.open (Neovim 0.10+) or xdg-open/open, when there is a display.
  open = nil,
  -- vim.diagnostic.config for litmus's diagnostics: a line with an error
  -- and a cycle member's hint shows the error's sign.
  diagnostics = { severity_sort = true },
  -- Inlay hints (values each load may read; Neovim 0.10+) on attach.
  inlay_hints = true,
  -- statusline()'s marks: errors, warnings (or an unknown answer), a clean
  -- check, a check under way.
  icons = { error = '✗', warning = '⚠', ok = '✓', busy = '…' },
}

-- The client commands this plugin implements: the server's lenses run them
-- (else its own `litmus.server.showExecution`).
M.client_commands = { 'litmus.showExecution' }

-- The last `litmus/status` per document URI: { state, version, message,
-- errors, warnings, headline, incomplete }.
M.status = {}
-- Why no server runs, when start() could not start one (else nil).
M.problem = nil
local clients = {}

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
end

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO)
end

local function root_dir(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local dir = vim.fn.fnamemodify(name, ':p:h')
  if vim.fs and vim.fs.find then
    local found = vim.fs.find(M.config.root_markers, { path = dir, upward = true })[1]
    if found then
      return vim.fn.fnamemodify(found, ':h')
    end
  end
  return dir
end

--- The litmus clients running (attached anywhere, or to `bufnr`).
function M.clients(bufnr)
  local list
  if vim.lsp.get_clients then
    list = vim.lsp.get_clients({ bufnr = bufnr, name = 'litmus' })
  elseif bufnr then
    list = vim.lsp.buf_get_clients(bufnr)
  else
    list = vim.lsp.get_active_clients()
  end
  local out = {}
  for _, c in pairs(list) do
    if c.name == 'litmus' then
      table.insert(out, c)
    end
  end
  table.sort(out, function(a, b) return a.id < b.id end)
  return out
end

--- The litmus client attached to `bufnr` (0: the current buffer), or nil.
function M.client(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  return M.clients(bufnr)[1]
end

local function on_status(_, result)
  if result and result.uri then
    local old = M.status[result.uri]
    if old and old.version and result.version and old.version > result.version then
      return
    end
    M.status[result.uri] = result
    -- New verdicts: redraw the lenses (Neovim does not honour the server's
    -- workspace/codeLens/refresh before 0.10, and draws none it did not ask for).
    if result.state == 'checked' or result.state == 'violations' then
      local bufnr = vim.uri_to_bufnr(result.uri)
      vim.schedule(function()
        if vim.api.nvim_buf_is_loaded(bufnr) then
          pcall(vim.lsp.codelens.refresh, { bufnr = bufnr })
        end
      end)
    end
    vim.schedule(function()
      pcall(vim.cmd, 'redrawstatus!')
    end)
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'LitmusStatus', modeline = false })
  end
end

--- Opens a file the system's way: `config.open`, else vim.ui.open or
--- xdg-open/open when there is a display; says where it is either way
--- (`msg`), with a hint when nothing could open it.
function M.open_external(path, msg)
  msg = msg or ('litmus: %s'):format(path)
  if M.config.open then
    notify(msg)
    return M.config.open(path)
  end
  local hint = ('\nOpen it in a browser or an image viewer, or set `open` in require("litmus").setup{} (a function of the path).')
  local mac = vim.fn.has('mac') == 1
  local windows = vim.fn.has('win32') == 1
  if not mac and not windows and (vim.env.DISPLAY or '') == '' and (vim.env.WAYLAND_DISPLAY or '') == '' then
    return notify(msg .. ' (no display here to open it)' .. hint, vim.log.levels.WARN)
  end
  if vim.ui and vim.ui.open then
    local _, err = vim.ui.open(path)
    if err then
      return notify(('%s (%s)%s'):format(msg, err, hint), vim.log.levels.WARN)
    end
    return notify(msg)
  end
  local cmd = mac and 'open' or windows and 'explorer' or 'xdg-open'
  if vim.fn.executable(cmd) ~= 1 then
    return notify(('%s (no %s to open it)%s'):format(msg, cmd, hint), vim.log.levels.WARN)
  end
  notify(msg)
  local job = vim.fn.jobstart({ cmd, path }, {
    detach = true,
    on_exit = function(_, code)
      if code ~= 0 and not windows then
        notify(('litmus: %s could not open %s (exit %d)%s'):format(cmd, path, code, hint), vim.log.levels.WARN)
      end
    end,
  })
  if job <= 0 then
    notify(('litmus: could not run %s on %s%s'):format(cmd, path, hint), vim.log.levels.WARN)
  end
end

--- Shows a Markdown file (litmus's explanation) in a split, or reloads the
--- window that already shows it.
function M.open_markdown(path)
  local full = vim.fn.fnamemodify(path, ':p')
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    local buf = vim.api.nvim_win_get_buf(win)
    if vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ':p') == full then
      vim.api.nvim_set_current_win(win)
      vim.cmd('silent edit!')
      return buf
    end
  end
  vim.cmd('split ' .. vim.fn.fnameescape(full))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'markdown'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].modifiable = false
  return buf
end

-- window/showDocument: Markdown in a split, anything external with the
-- system viewer, a source file at the selection.
local function show_document(_, params)
  if not params or not params.uri then
    return { success = false }
  end
  local uri = params.uri
  local path = uri:match('^file:') and vim.uri_to_fname(uri) or uri
  if params.external then
    M.open_external(path)
    return { success = true }
  end
  if path:match('%.md$') then
    M.open_markdown(path)
    return { success = true }
  end
  local ok = pcall(vim.cmd, 'edit ' .. vim.fn.fnameescape(path))
  if ok and params.selection then
    local s = params.selection.start
    pcall(vim.api.nvim_win_set_cursor, 0, { s.line + 1, s.character })
  end
  return { success = ok }
end

M.handlers = {
  ['litmus/status'] = on_status,
  ['window/showDocument'] = show_document,
}

-- What every litmus buffer gets on attach, before the user's on_attach.
local function on_attach(client, bufnr)
  if M.config.diagnostics then
    pcall(vim.diagnostic.config, M.config.diagnostics, vim.lsp.diagnostic.get_namespace(client.id))
  end
  if M.config.inlay_hints and vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
  end
  if M.config.on_attach then
    M.config.on_attach(client, bufnr)
  end
end

--- The initializationOptions: the settings and the client commands.
function M.init_options()
  local opts = vim.deepcopy(M.config.settings or {})
  opts.clientCommands = M.client_commands
  return opts
end

--- The client capabilities: Neovim's own, and window/showDocument (handled here).
function M.capabilities()
  local caps = M.config.capabilities or vim.lsp.protocol.make_client_capabilities()
  return vim.tbl_deep_extend('force', caps, { window = { showDocument = { support = true } } })
end

function M.client_config(bufnr)
  return {
    name = 'litmus',
    cmd = M.config.cmd,
    root_dir = root_dir(bufnr),
    init_options = M.init_options(),
    settings = { litmus = M.config.settings },
    handlers = M.handlers,
    on_attach = on_attach,
    capabilities = M.capabilities(),
  }
end

function M.start(bufnr)
  require('litmus.execution') -- registers the lenses' client command
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.fn.executable(M.config.cmd[1]) ~= 1 then
    M.problem = ('`%s` not found (install it with `cargo install --path .` in the litmus repository, or set cmd in require("litmus").setup{})'):format(M.config.cmd[1])
    vim.notify_once('litmus: ' .. M.problem, vim.log.levels.WARN)
    return nil
  end
  M.problem = nil
  local cfg = M.client_config(bufnr)
  if vim.lsp.start then
    return vim.lsp.start(cfg, { bufnr = bufnr })
  end
  local id = clients[cfg.root_dir]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(cfg)
    clients[cfg.root_dir] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

local function litmus_buffers()
  local out = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].filetype == 'litmus' then
      table.insert(out, b)
    end
  end
  return out
end

--- :LitmusRestart — stops every litmus client, then starts the server again
--- for every litmus buffer (once the old ones have exited). `done` is
--- called with the new clients' ids.
function M.restart(done)
  local old = {}
  for _, c in ipairs(M.clients()) do
    table.insert(old, c.id)
    vim.lsp.stop_client(c.id)
  end
  clients = {}
  M.status = {}
  local waited = 0
  local function again()
    local alive = vim.tbl_filter(function(id) return vim.lsp.get_client_by_id(id) ~= nil end, old)
    if #alive > 0 and waited < 5000 then
      if waited >= 3000 then
        for _, id in ipairs(alive) do
          pcall(vim.lsp.stop_client, id, true)
        end
      end
      waited = waited + 50
      return vim.defer_fn(again, 50)
    end
    local ids = {}
    if vim.g.litmus_autostart == false and vim.lsp.enable then
      vim.lsp.enable('litmus', false)
      vim.lsp.enable('litmus')
    else
      for _, b in ipairs(litmus_buffers()) do
        local id = M.start(b)
        if id then
          ids[id] = true
        end
      end
    end
    notify(('litmus: server restarted (%d buffer%s)'):format(#litmus_buffers(), #litmus_buffers() == 1 and '' or 's'))
    if done then
      done(vim.tbl_keys(ids))
    end
  end
  again()
end

local function plural(n, word)
  return ('%d %s%s'):format(n, word, n == 1 and '' or 's')
end

--- "2 errors, 1 warning", or "".
function M.counts(s)
  local parts = {}
  if (s.errors or 0) > 0 then
    table.insert(parts, plural(s.errors, 'error'))
  end
  if (s.warnings or 0) > 0 then
    table.insert(parts, plural(s.warnings, 'warning'))
  end
  return table.concat(parts, ', ')
end

--- The status in a few words (the server's headline, else the state and counts).
function M.headline(s)
  if s.headline and s.headline ~= '' then
    return s.headline
  end
  local c = M.counts(s)
  if s.state == 'checking' or s.state == 'violations' then
    return c == '' and 'checking…' or c .. ', checking…'
  elseif s.state == 'failed' then
    return 'check failed'
  elseif s.state == 'analyzed' then
    return c == '' and 'not checked' or c .. ' — not checked'
  end
  if c ~= '' then
    return c
  end
  return s.incomplete and 'some answers unknown' or 'no problems'
end

--- The mark of a status: busy while checking; then never ok with errors.
function M.mark(s)
  local i = M.config.icons
  if s.state == 'checking' or s.state == 'violations' then
    return i.busy
  end
  if s.errors == nil then
    if s.state == 'analyzed' then
      return i.error
    end
    return (s.state == 'failed' or s.incomplete) and i.warning or i.ok
  end
  if s.errors > 0 then
    return i.error
  end
  if (s.warnings or 0) > 0 or s.incomplete or s.state == 'failed' then
    return i.warning
  end
  return i.ok
end

--- For 'statusline': "✗ litmus: 2 harmful violations" for a litmus buffer
--- (its own last status), "" for any other. Redrawn when a status arrives
--- (also the User LitmusStatus autocommand).
function M.statusline(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.bo[bufnr].filetype ~= 'litmus' then
    return ''
  end
  if M.problem then
    return M.config.icons.error .. ' litmus: server not found'
  end
  if not M.client(bufnr) then
    return 'litmus: not running'
  end
  local s = M.status[vim.uri_from_bufnr(bufnr)]
  if not s then
    return M.config.icons.busy .. ' litmus'
  end
  return ('%s litmus: %s'):format(M.mark(s), M.headline(s))
end

--- :LitmusStatus's lines: the buffer's last status and the server's state.
function M.status_lines(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local lines = {}
  local s = M.status[vim.uri_from_bufnr(bufnr)]
  if vim.bo[bufnr].filetype ~= 'litmus' then
    table.insert(lines, 'litmus: this buffer is not a litmus file')
  elseif s then
    local c = M.counts(s)
    table.insert(lines, ('%s litmus: %s%s'):format(M.mark(s), M.headline(s), c ~= '' and (' (%s)'):format(c) or ''))
    table.insert(lines, ('  state: %s%s, version %s'):format(s.state, s.incomplete and ' (incomplete)' or '', tostring(s.version)))
    if s.message and s.message ~= '' then
      table.insert(lines, '  ' .. s.message)
    end
  else
    table.insert(lines, 'litmus: no status yet for this buffer')
  end
  local c = M.client(bufnr)
  if c then
    local pid = c.rpc and c.rpc.pid
    table.insert(lines, ('  server: running (client %d%s): %s'):format(c.id, pid and (', pid ' .. pid) or '', table.concat(c.config.cmd or M.config.cmd, ' ')))
  elseif M.problem then
    table.insert(lines, '  server: not started: ' .. M.problem)
  else
    table.insert(lines, '  server: not attached to this buffer (:LitmusRestart starts it)')
  end
  return lines
end

return M
