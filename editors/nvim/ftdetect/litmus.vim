" .litmus files: the native dialect and herd's x86 format share the extension.
autocmd BufRead,BufNewFile *.litmus setfiletype litmus
