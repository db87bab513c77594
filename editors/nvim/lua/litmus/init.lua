-- Starts `litmus lsp` for litmus buffers: vim.lsp.start on Neovim 0.8+,
-- vim.lsp.start_client + buf_attach_client on 0.7 (one client per root).
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
  -- vim.ui.open (Neovim 0.10+) or xdg-open.
  open = nil,
  -- vim.diagnostic.config for litmus's diagnostics: a line with an error
  -- and a cycle member's information shows the error's sign.
  diagnostics = { severity_sort = true },
  -- Inlay hints (values each load may read; Neovim 0.10+) on attach.
  inlay_hints = true,
}

-- The last `litmus/status` per document URI: { state, version, message }.
M.status = {}
local clients = {}

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
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

local function on_status(_, result)
  if result and result.uri then
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
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'LitmusStatus', modeline = false })
  end
end

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

function M.client_config(bufnr)
  return {
    name = 'litmus',
    cmd = M.config.cmd,
    root_dir = root_dir(bufnr),
    init_options = M.config.settings,
    settings = { litmus = M.config.settings },
    handlers = { ['litmus/status'] = on_status },
    on_attach = on_attach,
    capabilities = M.config.capabilities,
  }
end

function M.start(bufnr)
  require('litmus.execution') -- registers the lenses' client command
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.fn.executable(M.config.cmd[1]) ~= 1 then
    vim.notify_once(
      ('litmus: `%s` not found; install it (cargo install --path .) or set cmd in require("litmus").setup{}'):format(M.config.cmd[1]),
      vim.log.levels.WARN
    )
    return nil
  end
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

return M
