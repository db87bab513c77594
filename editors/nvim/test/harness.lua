-- What every headless test shares: `check` prints ok/FAIL and counts the
-- failures, `say` prints a detail, `finish` quits with the verdict (exit 1
-- on any failure). Loaded with dofile(LITMUS_ROOT .. '/editors/nvim/test/harness.lua').
local M = { failures = 0 }
function M.check(ok, what)
  print((ok and 'ok   ' or 'FAIL ') .. what)
  if not ok then
    M.failures = M.failures + 1
  end
end
function M.say(what)
  print('     ' .. what)
end
function M.finish()
  print('')
  vim.cmd(M.failures == 0 and 'qall!' or 'cquit 1')
end
return M
