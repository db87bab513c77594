#!/usr/bin/env python3
"""Writes litmus.tmLanguage.json. The grammar lives here as Python data so
the regexes need one level of escaping, not two; the JSON is committed and
this script is its source (re-run it after editing)."""
import json, pathlib

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"

def kw(words, scope):
    return {"match": r"\b(?:" + "|".join(words) + r")\b", "name": scope}

native = [
    {"include": "#comments"},
    {"include": "#strings"},
    {"match": r"^\s*(litmus)\s+(\S+)", "captures": {"1": {"name": "keyword.other.header.litmus"},
                                                     "2": {"name": "entity.name.section.test.litmus"}}},
    {"match": r"\b(thread)\s+(" + IDENT + ")", "captures": {"1": {"name": "storage.type.thread.litmus"},
                                                            "2": {"name": "entity.name.type.thread.litmus"}}},
    {"match": r"\b(fn)\s+(" + IDENT + ")", "captures": {"1": {"name": "storage.type.function.litmus"},
                                                        "2": {"name": "entity.name.function.litmus"}}},
    kw(["shared", "atomic", "let", "fn", "thread"], "storage.type.litmus"),
    {"match": r"\b(fence)\b(?:\s+(ww|wr|rr|full|relaxed|acquire|release|acq_rel|seq_cst)\b)?",
     "captures": {"1": {"name": "keyword.other.fence.litmus"}, "2": {"name": "keyword.other.fence-kind.litmus"}}},
    # An access's memory order: `x@acquire`.
    {"match": r"(@)\s*(relaxed|acquire|release|acq_rel|seq_cst)\b",
     "captures": {"1": {"name": "keyword.operator.order.litmus"}, "2": {"name": "storage.modifier.order.litmus"}}},
    kw(["if", "else", "while", "for", "in", "bound", "await", "return"], "keyword.control.litmus"),
    kw(["assert", "assume"], "keyword.control.assert.litmus"),
    kw(["cas", "xchg", "fetch_add", "lock", "unlock"], "keyword.other.atomic.litmus"),
    {"match": r"(~)?\b(exists|forall)\b", "captures": {"1": {"name": "keyword.operator.logical.litmus"},
                                                      "2": {"name": "keyword.other.quantifier.litmus"}}},
    kw(["true", "false"], "constant.language.boolean.litmus"),
    # THREAD:reg in the final condition.
    {"match": r"\b(" + IDENT + r")(:)(" + IDENT + r")\b", "captures": {
        "1": {"name": "entity.name.type.thread.litmus"},
        "2": {"name": "punctuation.separator.thread.litmus"},
        "3": {"name": "variable.other.register.litmus"}}},
    {"include": "#numbers"},
    {"match": r"(" + IDENT + r")\s*(?=\()", "name": "entity.name.function.call.litmus"},
    {"match": r"==|!=|<=|>=|&&|\|\||\.\.|[-+*/%<>!=~]", "name": "keyword.operator.litmus"},
    {"match": r"\b" + IDENT + r"\b", "name": "variable.other.litmus"},
]

MNEMONICS = [
    # Intel syntax and AT&T (with size suffixes) spellings.
    r"mov[lqwb]?", r"movz[bw][lqw]?", r"movs[bw][lqw]?", r"xchg[lqwb]?", r"cmpxchg[lqwb]?", r"xadd[lqwb]?",
    r"add[lqwb]?", r"sub[lqwb]?", r"inc[lqwb]?", r"dec[lqwb]?", r"and[lqwb]?", r"or[lqwb]?", r"xor[lqwb]?",
    r"neg[lqwb]?", r"not[lqwb]?", r"cmp[lqwb]?", r"test[lqwb]?", r"lea[lq]?", r"imul[lqwb]?",
    r"jmp", r"je", r"jne", r"jz", r"jnz", r"jl", r"jle", r"jg", r"jge", r"jb", r"jbe", r"ja", r"jae", r"js", r"jns",
    r"shl[lqwb]?", r"shr[lqwb]?", r"sal[lqwb]?", r"sar[lqwb]?", r"endbr64",
    r"sete", r"setne", r"setnb", r"setb", r"mfence", r"sfence", r"lfence", r"lock", r"nop[lqwb]?", r"ret", r"call",
]
REGISTERS = r"(?:r(?:[abcd]x|[sd]i|[sb]p|\d+[dwb]?)|e(?:[abcd]x|[sd]i|[sb]p)|[abcd][xlh]|[sd]il?|[sb]pl?|[cdefgs]s)"

# RISC-V: loads, stores, AMOs, lr/sc (with .aq/.rl/.aqrl), fences, arithmetic, branches.
RISCV_MNEMONICS = [
    r"l[bhwd]u?", r"s[bhwd]", r"amo(?:swap|add|and|or|xor|max|min)u?\.[wd]", r"lr\.[wd]", r"sc\.[wd]",
    r"fence(?:\.tso|\.i)?", r"li", r"mv", r"addi?w?", r"subw?", r"andi?", r"ori?", r"xori?", r"s[lr][la]i?w?",
    r"mul", r"slti?u?", r"beqz?", r"bnez?", r"bltu?", r"bgeu?", r"j", r"nop",
]
RISCV_REGISTERS = r"(?:x(?:[12]?\d|3[01])|zero|ra|sp|gp|tp|t[0-6]|s(?:[0-9]|1[01])|a[0-7])"

herd_body = [
    {"include": "#herd-comments"},
    {"include": "#strings"},
    # Metadata lines of the preamble: Key=value.
    {"match": r"^\s*([A-Z][A-Za-z]*)(=)(.*)$", "captures": {"1": {"name": "variable.other.key.litmus"},
                                                           "2": {"name": "keyword.operator.litmus"},
                                                           "3": {"name": "string.unquoted.metadata.litmus"}}},
    {"match": r"\bP\d+\b", "name": "entity.name.type.thread.litmus"},
    # C types in init blocks: `int64_t x = 0;`.
    {"match": r"\b(?:u?int(?:8|16|32|64|128)?_t|int|long|char|short)\b", "name": "storage.type.litmus"},
    {"match": r"(?i)\b(?:exists|forall|locations|filter)\b", "name": "keyword.other.quantifier.litmus"},
    {"match": r"(?i)\b(?:true|false|not)\b", "name": "constant.language.boolean.litmus"},
    {"match": r"(?i)\b(?:" + "|".join(MNEMONICS) + r")\b", "name": "keyword.other.instruction.litmus"},
    # A RISC-V fence's access sets (`fence rw,rw`; `i`/`o` device sets).
    {"match": r"\b(fence)[ \t]+([iorw]+)[ \t]*(,)[ \t]*([iorw]+)\b", "captures": {
        "1": {"name": "keyword.other.instruction.litmus"}, "2": {"name": "keyword.other.fence-kind.litmus"},
        "3": {"name": "punctuation.separator.litmus"}, "4": {"name": "keyword.other.fence-kind.litmus"}}},
    {"match": r"\b(?:" + "|".join(RISCV_MNEMONICS) + r")(?:\.(?:aqrl|aq|rl))?(?![\w.])",
     "name": "keyword.other.instruction.litmus"},
    {"match": r"\b" + RISCV_REGISTERS + r"\b", "name": "variable.language.register.litmus"},
    {"match": r"(?i)(%)?\b(" + REGISTERS + r")\b", "captures": {"1": {"name": "punctuation.definition.register.litmus"},
                                                             "2": {"name": "variable.language.register.litmus"}}},
    {"match": r"(\$)(-?(?:0x[0-9A-Fa-f]+|\d+))", "captures": {"1": {"name": "keyword.operator.immediate.litmus"},
                                                              "2": {"name": "constant.numeric.integer.litmus"}}},
    {"match": r"\b(\d+)(:)", "captures": {"1": {"name": "constant.numeric.thread.litmus"},
                                          "2": {"name": "punctuation.separator.thread.litmus"}}},
    {"match": r"\b([A-Za-z_][A-Za-z0-9_]*)(:)", "captures": {"1": {"name": "entity.name.label.litmus"},
                                                            "2": {"name": "punctuation.separator.label.litmus"}}},
    {"include": "#numbers"},
    {"match": r"/\\|\\/|~|==|!=|=", "name": "keyword.operator.litmus"},
    {"match": r"[|;,]", "name": "punctuation.separator.litmus"},
    {"match": r"\b[A-Za-z_][A-Za-z0-9_.]*\b", "name": "variable.other.location.litmus"},
]

# AArch64: the catalogue's mnemonics (with acquire/release and size forms),
# W/X registers, `#` immediates, barrier options and condition codes.
ARM_MNEMONICS = [
    r"ldr[bh]?", r"ldar[bh]?", r"ldapr[bh]?", r"ldx[rp]", r"ldax[rp]", r"str[bh]?", r"stlr[bh]?", r"stx[rp]",
    r"stlx[rp]", r"ld[pn]p", r"st[pn]p", r"stilp", r"ldiapp",
    r"swpa?l?[bh]?", r"casp?a?l?[bh]?", r"ld(?:add|clr|eor|set|smax|smin|umax|umin)a?l?[bh]?",
    r"st(?:add|clr|eor|set|smax|smin|umax|umin)l?[bh]?",
    r"mov[zkn]?", r"add", r"sub", r"eor", r"and", r"orr", r"mul", r"ls[lr]", r"asr", r"cmp", r"csel", r"csinc",
    r"csinv", r"csneg", r"cbn?z", r"b(?:\.(?:eq|ne|ge|lt|gt|le|hs|cs|lo|cc|hi|ls|mi|pl))?", r"bl?r?", r"ret",
    r"adr", r"dmb", r"dsb", r"isb", r"nop",
]
ARM_REGISTERS = r"(?:[wx](?:[12]?\d|30)|[wx]zr|w?sp)"
ARM_OPTIONS = r"(?:sy|ld|st|(?:ish|osh|nsh)(?:ld|st)?|eq|ne|ge|lt|gt|le|hs|cs|lo|cc|hi|ls|sxtw|uxtw|lsl)"

aarch64_body = [p for p in herd_body[:6]] + [
    {"match": r"(?i)\b(?:true|false|not)\b", "name": "constant.language.boolean.litmus"},
    {"match": r"(?i)\b(?:" + "|".join(ARM_MNEMONICS) + r")(?![\w.])", "name": "keyword.other.instruction.litmus"},
    {"match": r"(?i)\b" + ARM_REGISTERS + r"\b", "name": "variable.language.register.litmus"},
    {"match": r"(?i)\b" + ARM_OPTIONS + r"\b", "name": "keyword.other.fence-kind.litmus"},
    {"match": r"(#)(-?(?:0x[0-9A-Fa-f]+|\d+))", "captures": {"1": {"name": "keyword.operator.immediate.litmus"},
                                                              "2": {"name": "constant.numeric.integer.litmus"}}},
] + [p for p in herd_body if p.get("match", "").startswith((r"\b(\d+)(:)", r"\b([A-Za-z_]"))] + [
    {"include": "#numbers"},
    {"match": r"/\\|\\/|~|==|!=|=", "name": "keyword.operator.litmus"},
    {"match": r"[|;,]", "name": "punctuation.separator.litmus"},
    {"match": r"\b[A-Za-z_][A-Za-z0-9_.]*\b", "name": "variable.other.location.litmus"},
]

# herd's C format: threads as C functions, C11 atomics with memory orders.
c_body = [
    {"include": "#herd-comments"},
    {"include": "#comments"},
    {"include": "#strings"},
    {"match": r"\bP\d+\b", "name": "entity.name.type.thread.litmus"},
    {"match": r"\b(?:_Atomic|[A-Za-z_]\w*_t|atomic_int|volatile|const|unsigned|signed|int|long|char|short)\b",
     "name": "storage.type.litmus"},
    kw(["if", "else", "while", "for"], "keyword.control.litmus"),
    {"match": r"\b(atomic_\w+)\s*(?=\()", "name": "keyword.other.atomic.litmus"},
    {"match": r"\bmemory_order_(?:relaxed|consume|acquire|release|acq_rel|seq_cst)\b",
     "name": "constant.language.memory-order.litmus"},
    {"match": r"(?i)\b(?:exists|forall|locations|filter)\b", "name": "keyword.other.quantifier.litmus"},
    {"match": r"(?i)\b(?:true|false|not)\b", "name": "constant.language.boolean.litmus"},
    {"match": r"\b(\d+)(:)", "captures": {"1": {"name": "constant.numeric.thread.litmus"},
                                          "2": {"name": "punctuation.separator.thread.litmus"}}},
    {"include": "#numbers"},
    {"match": r"/\\|\\/|==|!=|<=|>=|&&|\|\||[-+*/%<>!=~&^|]", "name": "keyword.operator.litmus"},
    {"match": r"[;,]", "name": "punctuation.separator.litmus"},
    {"match": r"\b[A-Za-z_][A-Za-z0-9_]*\b", "name": "variable.other.litmus"},
]

grammar = {
    "$schema": "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
    "name": "litmus",
    "scopeName": "source.litmus",
    "fileTypes": ["litmus"],
    "patterns": [
        {"include": "#comments"},
        # A herd test: the architecture line starts it; it runs to the end of the file.
        # (Only a line that is `C NAME` alone: a native `C = 1;` is no header.)
        {"begin": r"^\s*(C)[ \t]+([^\s;=(){}]+)[ \t]*$", "end": r"(?!)",
         "beginCaptures": {"1": {"name": "keyword.other.architecture.litmus"},
                           "2": {"name": "entity.name.section.test.litmus"}},
         "name": "meta.test.herd-c.litmus", "patterns": c_body},
        {"begin": r"^\s*(AArch64)\b[ \t]*(\S*)", "end": r"(?!)",
         "beginCaptures": {"1": {"name": "keyword.other.architecture.litmus"},
                           "2": {"name": "entity.name.section.test.litmus"}},
         "name": "meta.test.herd-aarch64.litmus", "patterns": aarch64_body},
        {"begin": r"^\s*(X86(?:_64)?|RISCV)\b[ \t]*(\S*)", "end": r"(?!)",
         "beginCaptures": {"1": {"name": "keyword.other.architecture.litmus"},
                           "2": {"name": "entity.name.section.test.litmus"}},
         "name": "meta.test.herd.litmus", "patterns": herd_body},
        {"include": "#native"},
    ],
    "repository": {
        "native": {"patterns": native},
        "comments": {"patterns": [
            {"begin": r"//", "end": r"$", "name": "comment.line.double-slash.litmus"},
            {"begin": r"/\*", "end": r"\*/", "name": "comment.block.litmus"},
        ]},
        "herd-comments": {"patterns": [{"begin": r"\(\*", "end": r"\*\)", "name": "comment.block.herd.litmus"}]},
        "strings": {"patterns": [{"begin": r'"', "end": r'"', "name": "string.quoted.double.litmus",
                                  "patterns": [{"match": r"\\.", "name": "constant.character.escape.litmus"}]}]},
        "numbers": {"patterns": [{"match": r"\b(?:0x[0-9A-Fa-f]+|\d+)\b", "name": "constant.numeric.integer.litmus"}]},
    },
}

out = pathlib.Path(__file__).with_name("litmus.tmLanguage.json")
out.write_text(json.dumps(grammar, indent=2) + "\n")
