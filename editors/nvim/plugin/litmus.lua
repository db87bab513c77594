-- Start the litmus language server on litmus buffers. Set
-- `vim.g.litmus_autostart = false` to manage it yourself (for example with
-- `vim.lsp.enable('litmus')` on Neovim 0.11+, which reads lsp/litmus.lua).
if vim.g.loaded_litmus then
  return
end
vim.g.loaded_litmus = 1

vim.api.nvim_create_autocmd('FileType', {
  pattern = 'litmus',
  group = vim.api.nvim_create_augroup('litmus_lsp', { clear = true }),
  callback = function(args)
    if vim.g.litmus_autostart == false then
      return
    end
    require('litmus').start(args.buf)
  end,
})

-- :LitmusShowExecution[!] [N] [whole]: the execution graph of violation N;
-- with ! or `whole`, its whole execution (lua/litmus/execution.lua).
vim.api.nvim_create_user_command('LitmusShowExecution', function(opts)
  local n, whole = nil, opts.bang
  for _, word in ipairs(opts.fargs) do
    if word == 'whole' then
      whole = true
    else
      n = tonumber(word) or n
    end
  end
  require('litmus.execution').show(0, n, whole)
end, {
  nargs = '*',
  bang = true,
  desc = 'litmus: show a violation\'s execution graph (SVG); ! for the whole execution',
})
