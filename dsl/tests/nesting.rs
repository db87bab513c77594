//! Deep nesting never overflows the stack: beyond `MAX_NESTING` levels it is
//! error E0010 at a span in the text; up to the limit the file analyses
//! cleanly. Everything runs on a thread with a 2 MiB stack, the size of the
//! language server's worker threads. Proptests of mixed nesting (blocks,
//! expressions, both dialects' conditions) around and far beyond the limit;
//! each construct 20,000 and 1,000,000 levels deep; parsing recovers after
//! the error.

use litmus_dsl::{analyze, diagnostic::render, Severity, MAX_NESTING, NESTING_CODE};
use proptest::prelude::*;

/// What a 2 MiB thread saw: every diagnostic's code, severity and span.
struct Seen {
    diags: Vec<(&'static str, Severity, usize, usize)>,
}

impl Seen {
    fn nesting(&self) -> usize {
        self.diags.iter().filter(|d| d.0 == NESTING_CODE).count()
    }
    fn errors(&self) -> Vec<&(&'static str, Severity, usize, usize)> {
        self.diags.iter().filter(|d| d.1 == Severity::Error).collect()
    }
}

/// Analyse and render `src` on a thread with a 2 MiB stack (a stack overflow
/// aborts the test binary), and check every span lies in the text.
fn on_small_stack(src: String) -> Seen {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let a = analyze(&src);
            let _ = render(&a.diagnostics, "deep.litmus", &src, false);
            // The results are cloned, printed and dropped here too.
            let copy = a.clone();
            let _ = format!("{:?}", copy.program);
            drop(copy);
            for d in &a.diagnostics {
                assert!(d.span.start <= d.span.end && d.span.end <= src.len(), "{d:?} out of {}", src.len());
                assert!(src.is_char_boundary(d.span.start) && src.is_char_boundary(d.span.end), "{d:?}");
            }
            Seen { diags: a.diagnostics.iter().map(|d| (d.code, d.severity, d.span.start, d.span.end)).collect() }
        })
        .unwrap()
        .join()
        .expect("analysis panicked")
}

const MAX: usize = MAX_NESTING as usize;

// ---------------------------------------------------------------------------
// Generated nesting, with the number of levels it needs.

/// A construct wrapped around an expression (native) or a condition (herd).
#[derive(Clone, Copy, Debug)]
enum Layer {
    Paren,
    Not,
    Neg,
    Index,
    Cas,
    Add,
    Mul,
    And,
    Or,
}

/// An expression's text, its height in levels, and its top operator's
/// binding strength (9 for anything that is not a binary operation).
struct Ex {
    text: String,
    levels: usize,
    prec: u8,
}

/// Wrap `e` in `layer`, parenthesising it when the operator would otherwise
/// regroup it (which costs one more level). `herd`: `~`, `/\`, `\/`.
fn wrap(e: Ex, layer: Layer, herd: bool) -> Ex {
    let paren = |e: Ex| Ex { text: format!("({})", e.text), levels: e.levels + 1, prec: 9 };
    let unary = |e: Ex, op: &str| {
        let e = if e.prec < 9 { paren(e) } else { e };
        Ex { text: format!("{op}{}", e.text), levels: e.levels + 1, prec: 9 }
    };
    let binary = |e: Ex, prec: u8, rest: &str| {
        let e = if e.prec < prec { paren(e) } else { e };
        Ex { text: format!("{} {rest}", e.text), levels: e.levels + 1, prec }
    };
    match (layer, herd) {
        (Layer::Paren, _) => paren(e),
        (Layer::Not, false) => unary(e, "!"),
        (Layer::Neg, false) => unary(e, "- "),
        (Layer::Not | Layer::Neg, true) => unary(e, "~"),
        (Layer::Index, false) => Ex { text: format!("a[{}]", e.text), levels: e.levels + 1, prec: 9 },
        (Layer::Cas, false) => Ex { text: format!("cas(x, {}, 1)", e.text), levels: e.levels + 1, prec: 9 },
        (Layer::Add, false) => binary(e, 5, "+ 1"),
        (Layer::Mul, false) => binary(e, 6, "* 2"),
        (Layer::And, false) => binary(e, 2, "&& x"),
        (Layer::Or, false) => binary(e, 1, "|| x"),
        (Layer::Index | Layer::Cas | Layer::Mul | Layer::And, true) => binary(e, 2, "/\\ x=1"),
        (Layer::Add | Layer::Or, true) => binary(e, 1, "\\/ x=1"),
    }
}

fn build(base: Ex, layers: &[Layer], herd: bool) -> Ex {
    layers.iter().fold(base, |e, &l| wrap(e, l, herd))
}

/// A statement wrapped around a statement.
#[derive(Clone, Copy, Debug)]
enum Block {
    If,
    While,
    Else,
    ElseIf,
}

/// A thread whose innermost statement is `x = E;` inside the given blocks,
/// and the deepest level it reaches (the thread body's statements are at
/// level 1; an `if`'s condition `(x == 0)` needs two levels below the `if`).
fn native_thread(blocks: &[Block], e: &Ex) -> (String, usize) {
    let mut open = String::new();
    let mut close = String::new();
    let mut level = 1;
    let mut need = 0;
    for b in blocks {
        let (o, c, cond_at, inner) = match b {
            Block::If => ("if (x == 0) {\n", "}\n", level, level + 1),
            Block::While => ("while (x == 0) {\n", "}\n", level, level + 1),
            Block::Else => ("if (x == 0) { x = 1; } else {\n", "}\n", level, level + 1),
            Block::ElseIf => ("if (x == 0) { x = 1; } else if (x == 1) {\n", "}\n", level + 1, level + 2),
        };
        need = need.max(cond_at + 2);
        open.push_str(o);
        close.insert_str(0, c);
        level = inner;
    }
    need = need.max(level + e.levels);
    let src = format!(
        "litmus DEEP\nshared x = 0;\nshared a[2] = {{0, 0}};\nthread P0 {{\n{open}x = {};\n{close}}}\nexists (x == 1);\n",
        e.text
    );
    (src, need)
}

/// A native test whose final condition is `E` (at level 0).
fn native_condition(e: &Ex) -> (String, usize) {
    let src = format!("litmus DEEP\nshared x = 0;\nthread P0 {{\n  x = 1;\n}}\nexists {};\n", e.text);
    (src, e.levels)
}

/// A herd test whose final condition is `E` (at level 0).
fn herd_condition(e: &Ex) -> (String, usize) {
    let src = format!("X86 DEEP\n{{ x=0; }}\n P0          ;\n MOV [x],$1  ;\n MOV EAX,[x] ;\nexists {}\n", e.text);
    (src, e.levels)
}

/// Below the limit: no error at all. Beyond it: an E0010 with a span in the
/// text (checked by `on_small_stack`).
fn check(src: String, need: usize) -> Result<(), TestCaseError> {
    let len = src.len();
    let seen = on_small_stack(src);
    if need <= MAX {
        prop_assert!(seen.errors().is_empty(), "{need} levels: {:?}", seen.errors());
    } else {
        prop_assert!(seen.nesting() >= 1, "{need} levels, {len} bytes, no {NESTING_CODE}: {:?}", seen.diags);
    }
    Ok(())
}

fn layers() -> impl Strategy<Value = Layer> {
    use Layer::*;
    prop::sample::select(vec![Paren, Not, Neg, Index, Cas, Add, Mul, And, Or])
}

fn condition_layers() -> impl Strategy<Value = Layer> {
    use Layer::*;
    prop::sample::select(vec![Paren, Not, And, Or])
}

fn blocks() -> impl Strategy<Value = Block> {
    use Block::*;
    prop::sample::select(vec![If, While, Else, ElseIf])
}

fn leaf(text: &str, levels: usize) -> Ex {
    Ex { text: text.to_string(), levels, prec: 9 }
}

/// Wrap `x` in layers until the thread needs `target` levels (or the layers
/// run out): cases right at the boundary.
fn up_to(blocks: &[Block], layers: &[Layer], target: usize) -> (String, usize) {
    let mut e = leaf("x", 0);
    for &l in layers {
        if native_thread(blocks, &e).1 >= target {
            break;
        }
        e = wrap(e, l, false);
    }
    native_thread(blocks, &e)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Mixed expressions and blocks around the limit: the boundary is exact.
    #[test]
    fn native_statements_around_the_limit(
        bs in prop::collection::vec(blocks(), 0..130),
        ls in prop::collection::vec(layers(), 0..300),
    ) {
        let e = build(leaf("x", 0), &ls, false);
        let (src, need) = native_thread(&bs, &e);
        check(src, need)?;
    }

    /// Right at the boundary: one level less, the limit, one or two more.
    #[test]
    fn native_statements_at_the_limit(
        bs in prop::collection::vec(blocks(), 0..100),
        ls in prop::collection::vec(layers(), 300),
        off in 0usize..4,
    ) {
        let (src, need) = up_to(&bs, &ls, MAX - 1 + off);
        check(src, need)?;
    }

    #[test]
    fn native_conditions_around_the_limit(ls in prop::collection::vec(condition_layers(), 200..300)) {
        // `(x == 1)`: a parenthesised comparison, two levels.
        let e = build(Ex { text: "(x == 1)".into(), levels: 2, prec: 9 }, &ls, false);
        let (src, need) = native_condition(&e);
        check(src, need)?;
    }

    #[test]
    fn herd_conditions_around_the_limit(ls in prop::collection::vec(condition_layers(), 200..300)) {
        let e = build(leaf("0:EAX=1", 0), &ls, true);
        let (src, need) = herd_condition(&e);
        check(src, need)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Far beyond the limit, in both dialects.
    #[test]
    fn far_beyond_the_limit(
        bs in prop::collection::vec(blocks(), 0..3000),
        ls in prop::collection::vec(layers(), 1000..30000),
        cs in prop::collection::vec(condition_layers(), 1000..30000),
    ) {
        let e = build(leaf("x", 0), &ls, false);
        let (src, need) = native_thread(&bs, &e);
        check(src, need)?;
        let (src, need) = native_condition(&build(Ex { text: "(x == 1)".into(), levels: 2, prec: 9 }, &cs, false));
        check(src, need)?;
        let (src, need) = herd_condition(&build(leaf("0:EAX=1", 0), &cs, true));
        check(src, need)?;
    }
}

// ---------------------------------------------------------------------------
// Each kind of construct, 20,000 and 1,000,000 deep.

fn thread_with(body: &str) -> String {
    format!(
        "litmus DEEP\nshared x = 0;\nshared a[2] = {{0, 0}};\nfn g(v) {{ return v; }}\n\
         thread P0 {{\n{body}\n}}\nthread P1 {{\n  x = 2;\n}}\nexists (x == 1);\n"
    )
}

/// One E0010 (once per item), at a span in the text.
fn assert_one_nesting_error(name: &str, src: String) {
    let len = src.len();
    let seen = on_small_stack(src);
    assert_eq!(seen.nesting(), 1, "{name} ({len} bytes): {:?}", &seen.diags[..seen.diags.len().min(5)]);
}

/// Unbalanced input: whatever the errors, no overflow and no panic.
fn assert_errors(name: &str, src: String) {
    let seen = on_small_stack(src);
    assert!(!seen.errors().is_empty(), "{name}: no error");
}

/// A kind of nesting: its name, and its source text `n` levels deep (built
/// on demand, the million-level ones are large).
type Kind = (&'static str, fn(usize) -> String);

fn r(s: &str, n: usize) -> String {
    s.repeat(n)
}

fn condition(cond: String) -> String {
    format!("litmus DEEP\nshared x = 0;\nthread P0 {{\n  x = 1;\n}}\nexists {cond};\n")
}

fn herd(cond: String) -> String {
    format!("X86 DEEP\n{{ x=0; }}\n P0          ;\n MOV [x],$1  ;\nexists {cond}\n")
}

const KINDS: &[Kind] = &[
    ("parentheses", |n| thread_with(&format!("  x = {}x{};", r("(", n), r(")", n)))),
    ("!", |n| thread_with(&format!("  x = {}x;", r("!", n)))),
    ("- -", |n| thread_with(&format!("  x = {}x;", r("- ", n)))),
    ("!(", |n| thread_with(&format!("  x = {}x{};", r("!(", n), r(")", n)))),
    ("index", |n| thread_with(&format!("  x = {}0{};", r("a[", n), r("]", n)))),
    ("call arguments", |n| thread_with(&format!("  x = {}x{};", r("g(", n), r(")", n)))),
    ("cas arguments", |n| thread_with(&format!("  x = {}1{};", r("cas(x, 0, ", n), r(")", n)))),
    ("+ chain", |n| thread_with(&format!("  x = x{};", r(" + 1", n)))),
    ("* chain", |n| thread_with(&format!("  x = x{};", r("*2", n)))),
    ("&& chain", |n| thread_with(&format!("  x = x{};", r("&&x", n)))),
    ("if", |n| thread_with(&format!("{}x = 1;{}", r("if(x){", n), r("}", n)))),
    ("while", |n| thread_with(&format!("{}x = 1;{}", r("while(x){", n), r("}", n)))),
    ("else", |n| thread_with(&format!("{}x = 1;{}", r("if(x){}else{", n), r("}", n)))),
    ("else if", |n| thread_with(&format!("if(x){{}}{}", r("else if(x){}", n)))),
    // A million functions would be a 28 MB file: this kind stops at 20,000.
    ("functions inlined in a chain", |n| {
        let n = n.min(20_000);
        let fns: String = (0..n).map(|i| format!("fn f{i}(v){{return f{}(v);}}\n", i + 1)).collect();
        format!("litmus DEEP\nshared x = 0;\n{fns}fn f{n}(v) {{ return v; }}\nthread P0 {{\n  x = f0(1);\n}}\n")
    }),
    ("condition !", |n| condition(format!("({}(x == 1))", r("!", n)))),
    ("condition parentheses", |n| condition(format!("{}x == 1{}", r("(", n), r(")", n)))),
    ("condition && chain", |n| condition(format!("(x == 1{})", r(" && x == 1", n)))),
    ("herd ~", |n| herd(format!("({}x=1)", r("~", n)))),
    ("herd parentheses", |n| herd(format!("{}x=1{}", r("(", n), r(")", n)))),
    ("herd ~(", |n| herd(format!("{}x=1{}", r("~(", n), r(")", n)))),
    ("herd /\\ chain", |n| herd(format!("(x=1{})", r(" /\\ x=1", n)))),
    ("herd \\/ chain", |n| herd(format!("(x=1{})", r(" \\/ x=1", n)))),
];

/// Unbalanced input: whatever the errors, no overflow and no panic.
const UNBALANCED: &[Kind] = &[
    ("unclosed parentheses", |n| thread_with(&format!("  x = {}x;", r("(", n)))),
    ("unclosed if", |n| thread_with(&format!("{}x = 1;", r("if(x){", n)))),
    ("stray closers", |n| thread_with(&format!("  x = 1;{}", r(")", n)))),
    ("unclosed herd parentheses", |n| herd(format!("{}x=1", r("(", n)))),
];

fn each_kind(n: usize) {
    for (name, src) in KINDS {
        assert_one_nesting_error(name, src(n));
    }
    for (name, src) in UNBALANCED {
        assert_errors(name, src(n));
    }
}

#[test]
fn twenty_thousand_levels_of_each_kind() {
    each_kind(20_000);
}

#[test]
fn a_million_levels_of_each_kind() {
    each_kind(1_000_000);
}

#[test]
fn long_chains_of_a_hundred_thousand_terms() {
    for n in [100_000, 1_000_000] {
        let src = thread_with(&format!("  x = 1{};", " + 1".repeat(n - 1)));
        assert_one_nesting_error("1 + 1 + ...", src);
    }
}

#[test]
fn every_kind_just_below_the_limit_analyses_cleanly() {
    // The thread body is level 1: 255 more levels fit.
    let n = MAX - 1;
    let r = |s: &str, k: usize| s.repeat(k);
    let ok = [
        thread_with(&format!("  x = {}x{};", r("(", n), r(")", n))),
        thread_with(&format!("  x = {}x;", r("!", n))),
        thread_with(&format!("  x = {}0{};", r("a[", n), r("]", n))),
        thread_with(&format!("  x = x{};", r(" + 1", n))),
        // An `if` at level k needs k + 2 for its condition `(x)`... and `(x == 0)`.
        thread_with(&format!("{}x = 1;{}", r("if(x){", n - 1), r("}", n - 1))),
        thread_with(&format!("if(x){{}}{}", r("else if(x){}", n - 2))),
        format!("X86 DEEP\n{{ x=0; }}\n P0 ;\n MOV [x],$1 ;\nexists {}x=1{}\n", r("(", MAX), r(")", MAX)),
    ];
    for src in ok {
        let seen = on_small_stack(src);
        assert!(seen.errors().is_empty(), "{:?}", seen.errors());
    }
}

#[test]
fn the_error_points_where_the_limit_is_crossed_and_parsing_goes_on() {
    let deep = "!".repeat(10_000);
    let src = format!(
        "litmus DEEP\nshared x = 0;\nthread P0 {{\n  x = {deep}x;\n  x = = 1;\n  let r = unknown;\n}}\nexists (x == 1);\n"
    );
    let a = analyze(&src);
    let codes: Vec<&str> = a.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E0010", "E0002", "E0221"], "{:?}", a.diagnostics);
    // The thread body is level 1, so the 256th `!` is the first too deep.
    let at = src.find('!').unwrap() + MAX - 1;
    assert_eq!((a.diagnostics[0].span.start, a.diagnostics[0].span.end), (at, at + 1));
    assert_eq!(a.diagnostics[0].message, format!("nesting deeper than {MAX} levels"));
}
