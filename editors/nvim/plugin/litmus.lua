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

-- :LitmusShowExecution[!] [N] [whole]: the execution graph of violation N
-- (or `condition`: the SC interleaving that breaks the final condition;
-- `failure:N`: a failing statement's); with ! or `whole`, its whole
-- execution (lua/litmus/execution.lua).
vim.api.nvim_create_user_command('LitmusShowExecution', function(opts)
  local n, whole = nil, opts.bang
  for _, word in ipairs(opts.fargs) do
    if word == 'whole' then
      whole = true
    else
      n = word
    end
  end
  require('litmus.execution').show(0, n, whole)
end, {
  nargs = '*',
  bang = true,
  desc = 'litmus: show a violation\'s execution graph (SVG); ! for the whole execution',
})

-- :LitmusExplain [N]: violation N (or `condition`, `failure:N`; else the
-- cursor line's, else the first finding worth explaining) step by step, in
-- a Markdown split.
vim.api.nvim_create_user_command('LitmusExplain', function(opts)
  require('litmus.commands').explain(0, opts.args ~= '' and opts.args or nil)
end, { nargs = '?', desc = 'litmus: explain a violation (Markdown, in a split)' })

-- :LitmusPort FROM TO: what moving the program from model FROM (the one it
-- was written for: `sc`, `x86tso.cat`…) to model TO (`aarch64`, `riscv`,
-- `rc11`…) changes, in a Markdown split.
vim.api.nvim_create_user_command('LitmusPort', function(opts)
  if #opts.fargs ~= 2 then
    return vim.notify('litmus: :LitmusPort FROM TO (e.g. :LitmusPort x86tso.cat aarch64)', vim.log.levels.ERROR)
  end
  require('litmus.commands').port(0, opts.fargs[1], opts.fargs[2])
end, { nargs = '+', desc = 'litmus: what porting the program from one model to another changes' })

-- :LitmusInsertFences: the minimal fences for every violation, inserted by the server.
vim.api.nvim_create_user_command('LitmusInsertFences', function()
  require('litmus.commands').insert_fences(0)
end, { desc = 'litmus: insert all minimal fences' })

-- :LitmusRecheck: check the buffer again.
vim.api.nvim_create_user_command('LitmusRecheck', function()
  require('litmus.commands').recheck(0)
end, { desc = 'litmus: check the buffer again' })

-- :LitmusRestart: stop the server and start it again for every litmus buffer.
vim.api.nvim_create_user_command('LitmusRestart', function()
  require('litmus').restart()
end, { desc = 'litmus: restart the language server' })

-- :LitmusStatus: the buffer's last check (its headline, counts, state) and the server's state.
vim.api.nvim_create_user_command('LitmusStatus', function()
  print(table.concat(require('litmus').status_lines(0), '\n'))
end, { desc = "litmus: the buffer's last check and the server's state" })
