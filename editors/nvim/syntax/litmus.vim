" Basic highlighting for .litmus files (native, herd X86, AArch64, RISCV and C); the language
" server's semantic tokens refine it where the client supports them.
if exists('b:current_syntax')
  finish
endif
syntax case match
syntax keyword litmusHeader litmus
syntax keyword litmusDecl shared atomic thread fn let
syntax keyword litmusControl if else while for in bound await return
syntax keyword litmusAssert assert assume
syntax keyword litmusFence fence ww wr rr full
" Memory orders: `x@acquire`, `fence seq_cst;`.
syntax match litmusOrder /@\s*\(relaxed\|acquire\|release\|acq_rel\|seq_cst\)\>/
syntax match litmusOrder /\<fence\s\+\zs\(relaxed\|acquire\|release\|acq_rel\|seq_cst\)\>/
syntax keyword litmusAtomic cas xchg fetch_add lock unlock
syntax keyword litmusQuant exists forall locations filter
syntax keyword litmusBool true false
syntax match litmusArch /^\s*\(X86\(_64\)\?\|RISCV\|AArch64\)\>/
" The herd formats' own words, only in a file written in that format.
let s:arch = matchstr(getline(1), '^\s*\zs\(RISCV\|AArch64\|C\)\ze\s')
if s:arch ==# 'C'
  syntax match litmusArch /^\s*C\>/
  " herd's C format: C11 atomics and their memory orders.
  syntax match litmusAtomic /\<atomic_\w\+\ze\s*(/
  syntax match litmusOrder /\<memory_order_\(relaxed\|consume\|acquire\|release\|acq_rel\|seq_cst\)\>/
  syntax keyword litmusDecl atomic_int volatile int
endif
syntax case ignore
syntax keyword litmusInstr mov movl movq movb movw xchg xchgl xchgq cmpxchg xadd add addl addq sub inc dec and or xor cmp test jmp je jne mfence sfence lfence nop nopl nopw
syntax match litmusRegister /%\?\<\(r[abcd]x\|e[abcd]x\|[abcd][xlh]\|r[sd]i\|e[sd]i\|r\d\+[dwb]\?\)\>/
syntax case match
if s:arch ==# 'RISCV'
" RISC-V: mnemonics (with .aq/.rl/.aqrl), x and ABI registers.
syntax match litmusInstr /\<\(l[bhwd]u\?\|s[bhwd]\|amo\(swap\|add\|and\|or\|xor\|max\|min\)u\?\.[wd]\|lr\.[wd]\|sc\.[wd]\|fence\(\.tso\|\.i\)\?\|li\|mv\|addi\?w\?\|ori\?\|xori\?\|andi\?\|beqz\?\|bnez\?\|bltu\?\|bgeu\?\|j\)\(\.\(aqrl\|aq\|rl\)\)\?\>/
syntax match litmusRegister /\<\(x\([12]\?\d\|3[01]\)\|zero\|ra\|sp\|gp\|tp\|t[0-6]\|s\([0-9]\|1[01]\)\|a[0-7]\)\>/
endif
if s:arch ==# 'AArch64'
" AArch64: mnemonics (with acquire/release and pair forms), W/X registers, barrier
" options and condition codes, `#` immediates.
syntax case ignore
syntax match litmusInstr /\<\(ldr\|ldar\|ldapr\|ldxr\|ldaxr\|str\|stlr\|stxr\|stlxr\|ldn\?p\|ldiapp\|lda\?xp\|stn\?p\|stilp\|stl\?xp\|caspa\?l\?\|swpa\?l\?\|casa\?l\?\|ld\(add\|clr\|eor\|set\)a\?l\?\|st\(add\|clr\|eor\|set\)l\?\|eor\|orr\|csel\|csinc\|csinv\|csneg\|cbn\?z\|b\(\.\a\a\)\?\|dmb\|dsb\|isb\)\>/
syntax match litmusRegister /\<\([wx]\([12]\?\d\|30\)\|[wx]zr\|w\?sp\)\>/
syntax keyword litmusFence sy ld st ish ishld ishst osh oshld oshst nsh nshld nshst
syntax match litmusNumber /#-\?\d\+/
endif
syntax case match
syntax match litmusNumber /\<\d\+\>/
syntax match litmusNumber /\$-\?\d\+/
syntax region litmusString start=/"/ skip=/\\"/ end=/"/
syntax match litmusComment "//.*$"
syntax region litmusComment start="/\*" end="\*/"
syntax region litmusComment start="(\*" end="\*)"
highlight default link litmusHeader Keyword
highlight default link litmusArch Keyword
highlight default link litmusDecl StorageClass
highlight default link litmusControl Conditional
highlight default link litmusAssert Exception
highlight default link litmusFence Special
highlight default link litmusAtomic Function
highlight default link litmusOrder Constant
highlight default link litmusQuant Keyword
highlight default link litmusBool Boolean
highlight default link litmusInstr Statement
highlight default link litmusRegister Identifier
highlight default link litmusNumber Number
highlight default link litmusString String
highlight default link litmusComment Comment
let b:current_syntax = 'litmus'
