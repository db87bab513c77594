" Basic highlighting for .litmus files (both dialects); the language
" server's semantic tokens refine it where the client supports them.
if exists('b:current_syntax')
  finish
endif
syntax case match
syntax keyword litmusHeader litmus
syntax keyword litmusDecl shared thread fn let
syntax keyword litmusControl if else while for in bound await return
syntax keyword litmusAssert assert assume
syntax keyword litmusFence fence ww wr rr full
syntax keyword litmusAtomic cas xchg fetch_add lock unlock
syntax keyword litmusQuant exists forall locations filter
syntax keyword litmusBool true false
syntax match litmusArch /^\s*X86\(_64\)\?\>/
syntax case ignore
syntax keyword litmusInstr mov movl movq movb movw xchg xchgl xchgq cmpxchg xadd add addl addq sub inc dec and or xor cmp test jmp je jne mfence sfence lfence nop nopl nopw
syntax match litmusRegister /%\?\<\(r[abcd]x\|e[abcd]x\|[abcd][xlh]\|r[sd]i\|e[sd]i\|r\d\+[dwb]\?\)\>/
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
highlight default link litmusQuant Keyword
highlight default link litmusBool Boolean
highlight default link litmusInstr Statement
highlight default link litmusRegister Identifier
highlight default link litmusNumber Number
highlight default link litmusString String
highlight default link litmusComment Comment
let b:current_syntax = 'litmus'
