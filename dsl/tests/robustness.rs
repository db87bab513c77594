//! Random input never panics, never hangs, and every diagnostic span lies
//! inside the text on character boundaries (so editors can show it):
//! proptest token soups of both dialects (with and without a header),
//! random bytes and mutated examples. `dsl/fuzz/` checks the same property
//! under libFuzzer (`cargo fuzz run analyze`).

use proptest::prelude::*;

const NATIVE: &[&str] = &[
    "litmus",
    "SB",
    "\"doc\"",
    "shared",
    "thread",
    "fn",
    "let",
    "if",
    "else",
    "while",
    "bound",
    "for",
    "in",
    "..",
    "await",
    "assert",
    "assume",
    "fence",
    "ww",
    "wr",
    "lock",
    "unlock",
    "return",
    "cas",
    "xchg",
    "fetch_add",
    "exists",
    "~exists",
    "forall",
    "true",
    "x",
    "y",
    "r0",
    "P0",
    "P1",
    "a",
    "0",
    "1",
    "-1",
    "0x10",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    ":",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "!",
    "&&",
    "||",
    "~",
    "/*",
    "*/",
    "//",
    "\n",
    "é",
    "🙂",
];

const HERD: &[&str] = &[
    "X86",
    "X86_64",
    "SB",
    "{",
    "}",
    "x=0;",
    "0:EAX=1;",
    "P0",
    "|",
    ";",
    "MOV",
    "[x],$1",
    "EAX,[y]",
    "movl",
    "$1,(x)",
    "(x),%eax",
    "MFENCE",
    "LOCK",
    "XCHG",
    "je",
    "L0:",
    "L0",
    "exists",
    "forall",
    "~",
    "/\\",
    "\\/",
    "(",
    ")",
    "0:EAX=0",
    "[x]=1",
    "locations",
    "[",
    "]",
    "(*",
    "*)",
    "\n",
    "int",
    "t[2]={1,-1}",
    "%cs:0(%rax,%rbx,8)",
];

fn check(src: &str) {
    let a = litmus_dsl::analyze(src);
    for d in &a.diagnostics {
        assert!(d.span.start <= d.span.end && d.span.end <= src.len(), "{d:?} out of {}", src.len());
        assert!(src.is_char_boundary(d.span.start) && src.is_char_boundary(d.span.end), "{d:?}");
        for r in &d.related {
            assert!(r.span.end <= src.len() && src.is_char_boundary(r.span.start) && src.is_char_boundary(r.span.end));
        }
    }
    let _ = litmus_dsl::diagnostic::render(&a.diagnostics, "fuzz.litmus", src, false);
    if let Some(p) = &a.program {
        for t in &p.threads {
            for i in &t.code {
                if let Some(s) = i.event_stmt() {
                    assert!((s as usize) < p.stmts.len());
                }
            }
        }
    }
}

fn soup(vocab: &'static [&'static str], header: &'static str) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vocab), 0..120).prop_map(move |toks| {
        let mut s = String::from(header);
        for t in toks {
            s.push_str(t);
            s.push(' ');
        }
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn native_token_soup(src in soup(NATIVE, "litmus T\n")) {
        check(&src);
    }

    #[test]
    fn native_token_soup_without_header(src in soup(NATIVE, "")) {
        check(&src);
    }

    #[test]
    fn herd_token_soup(src in soup(HERD, "X86 T\n")) {
        check(&src);
    }

    #[test]
    fn random_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        check(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_examples(idx in 0usize..4, cut in 0usize..2000, ins in prop::sample::select(NATIVE)) {
        let files = ["sb.litmus", "peterson.litmus", "ms2-queue.litmus", "treiber-stack.litmus"];
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples").join(files[idx]);
        let src = std::fs::read_to_string(path).unwrap();
        let mut at = cut.min(src.len());
        while !src.is_char_boundary(at) { at -= 1; }
        let mutated = format!("{}{}{}", &src[..at], ins, &src[at..]);
        check(&mutated);
    }
}
