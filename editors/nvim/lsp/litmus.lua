-- Neovim 0.11+: `vim.lsp.enable('litmus')` (nvim-lspconfig style config).
-- Set `vim.g.litmus_autostart = false` so the plugin does not start a second client.
return {
  cmd = { 'litmus', 'lsp' },
  filetypes = { 'litmus' },
  root_markers = { '.git' },
  init_options = {},
  settings = { litmus = {} },
  handlers = {
    ['litmus/status'] = function(_, result)
      require('litmus').status[result.uri] = result
    end,
  },
}
