-- Neovim 0.11+: `vim.lsp.enable('litmus')` (nvim-lspconfig style config).
-- Set `vim.g.litmus_autostart = false` so the plugin does not start a second client.
-- The plugin's commands (:LitmusShowExecution, :LitmusExplain, …) and
-- require('litmus').statusline() work with this client too.
local litmus = require('litmus')
require('litmus.execution') -- the lenses' client command
return {
  cmd = { 'litmus', 'lsp' },
  filetypes = { 'litmus' },
  root_markers = { '.git' },
  init_options = { clientCommands = litmus.client_commands },
  settings = { litmus = {} },
  capabilities = litmus.capabilities(),
  handlers = litmus.handlers,
}
