//! Completion, computed from the text at the cursor so that it works
//! mid-typing in a file that does not parse. The native tokens before the
//! cursor say where it is (an item's start, a statement's start, an
//! expression, the final condition, `THREAD:`) and which registers are in
//! scope there; the same pass over the whole file finds the shared
//! locations, functions and threads, and each thread's registers. The
//! analysis only lends its details (`shared x = 0`). Herd files: the x86
//! mnemonics, the registers of the cursor's column, the final condition.
//!
//! Every item replaces the word being typed ([`Completion::replace`]), so
//! accepting `r1` after `P1:r` gives `P1:r1`; names matching the typed
//! prefix sort first, names before keywords.

use litmus_dsl::native::lexer::{lex_with_comments, Token};
use litmus_dsl::{Analysis, SymbolKind};
use litmus_ir::Span;

/// What a completion request answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// What every item replaces: the word before the cursor (maybe empty).
    pub replace: Span,
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub label: String,
    pub kind: ItemKind,
    pub detail: String,
    /// Markdown shown beside the list.
    pub doc: Option<String>,
    /// The text accepting inserts, for clients without snippets.
    pub insert: String,
    /// The same with tab stops (`thread ${1:P2} {…}`).
    pub snippet: Option<String>,
    /// The order to show: names matching the typed prefix first.
    pub sort: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// A keyword, a fence kind, a mnemonic.
    Keyword,
    /// A keyword with a block to fill in (`thread`, `fn`, `if`, `while`).
    Snippet,
    Register,
    Param,
    Shared,
    Function,
    /// `cas`, `xchg`, `fetch_add`.
    Builtin,
    Thread,
    Constant,
}

/// A builtin called like a function: the RMWs, `lock` and `unlock`.
pub(crate) struct Builtin {
    pub name: &'static str,
    /// Each parameter and what it is.
    pub params: &'static [(&'static str, &'static str)],
    pub doc: &'static str,
    /// An expression (returns the old value); `lock`/`unlock` are statements.
    pub value: bool,
}

const LOC: &str = "a shared location or array element";

pub(crate) const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "cas",
        params: &[("loc", LOC), ("expected", "the value `loc` must hold"), ("new", "stored if it does")],
        doc: "Atomic compare-and-swap: stores `new` if `loc` holds `expected`; returns the old value. \
              One atomic event (a failed one only reads).",
        value: true,
    },
    Builtin {
        name: "xchg",
        params: &[("loc", LOC), ("value", "the value stored")],
        doc: "Atomic exchange: stores `value`; returns the old value. One atomic event.",
        value: true,
    },
    Builtin {
        name: "fetch_add",
        params: &[("loc", LOC), ("delta", "added to it (may be negative)")],
        doc: "Atomic fetch-and-add: adds `delta`; returns the old value. One atomic event.",
        value: true,
    },
    Builtin {
        name: "lock",
        params: &[("m", "the shared location used as the lock")],
        doc: "Atomic test-and-set of `m` that blocks until it succeeds.",
        value: false,
    },
    Builtin {
        name: "unlock",
        params: &[("m", "the shared location used as the lock")],
        doc: "A plain store of 0 to `m`.",
        value: false,
    },
];

pub(crate) fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// What may go at `offset` of `text` (a byte offset; clamped).
pub fn complete(a: &Analysis, text: &str, offset: usize) -> Completion {
    let offset = floor_char(text, offset);
    let start = word_start(text, offset);
    let mut c = Completion { replace: Span::new(start, offset), items: Vec::new() };
    // A number is being typed, not a name.
    if text[start..offset].starts_with(|ch: char| ch.is_ascii_digit()) {
        return c;
    }
    let items = if a.dialect.is_herd() {
        herd(a, text, start)
    } else {
        let (items, from) = native(a, text, start);
        c.replace.start = from;
        items
    };
    c.items = ranked(items, &text[c.replace.start..offset]);
    c
}

fn floor_char(text: &str, offset: usize) -> usize {
    let mut o = offset.min(text.len());
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    o
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Where the word ending at `offset` starts.
pub(crate) fn word_start(text: &str, offset: usize) -> usize {
    text[..offset].char_indices().rev().take_while(|(_, c)| is_word(*c)).last().map_or(offset, |(i, _)| i)
}

/// Sort keys: items whose label starts with the typed prefix first (exact
/// case, then any case), each group in the order given (names first).
fn ranked(mut items: Vec<Item>, typed: &str) -> Vec<Item> {
    let mut seen = std::collections::HashSet::new();
    items.retain(|i| seen.insert(i.label.clone()));
    let lower = typed.to_lowercase();
    for (k, i) in items.iter_mut().enumerate() {
        let tier = if i.label.starts_with(typed) {
            0
        } else if i.label.to_lowercase().starts_with(&lower) {
            1
        } else {
            2
        };
        i.sort = format!("{tier}{k:04}");
    }
    items
}

fn item(label: &str, kind: ItemKind, detail: impl Into<String>) -> Item {
    Item {
        label: label.to_string(),
        kind,
        detail: detail.into(),
        doc: None,
        insert: label.to_string(),
        snippet: None,
        sort: String::new(),
    }
}

/// A keyword inserted as `plain`, or as `snippet` where the client takes them.
fn snippet(label: &str, kind: ItemKind, detail: &str, plain: &str, snippet: &str) -> Item {
    Item { insert: plain.to_string(), snippet: Some(snippet.to_string()), ..item(label, kind, detail) }
}

// ---------------------------------------------------------------- native

/// The names the whole file declares, read from its tokens.
#[derive(Default, Debug)]
pub(crate) struct Outline {
    /// Shared locations, and whether each is an array.
    pub shared: Vec<(String, bool)>,
    pub fns: Vec<FnDecl>,
    /// In order: `0:r0` names the first.
    pub threads: Vec<ThreadDecl>,
    header: bool,
}

#[derive(Default, Debug)]
pub(crate) struct FnDecl {
    pub name: String,
    pub params: Vec<String>,
    /// Some `return` carries a value.
    pub value: bool,
}

#[derive(Default, Debug)]
pub(crate) struct ThreadDecl {
    pub name: String,
    /// Every `let` and `for` name of its body, first declaration first.
    pub regs: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Local {
    Reg,
    Param,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// A thread's or function's body.
    Body,
    /// A nested block, and what opened it (`else` follows an `if`'s).
    Block(Opener),
    /// An array's initial values.
    Init,
    /// `(` and its commas so far.
    Paren(Paren, usize),
    Bracket,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opener {
    If,
    Else,
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Paren {
    /// A call of a function or builtin.
    Call(String),
    /// A function's parameter list.
    Params,
    /// The final condition.
    Cond,
    /// `await (…)`: only reads may go there.
    Await,
    /// `if`, `while`, `assert`, `assume`.
    Header,
    Group,
}

#[derive(Clone, Debug)]
struct Frame {
    kind: Kind,
    /// The names a brace brings into scope, in order.
    names: Vec<(String, Local)>,
}

impl Frame {
    fn brace(&self) -> bool {
        matches!(self.kind, Kind::Body | Kind::Block(_) | Kind::Init)
    }
}

/// The top-level item being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Top {
    None,
    Header,
    Shared,
    Thread,
    Fn,
    Final,
}

/// A thread or function, by its index in the [`Outline`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner {
    Thread(usize),
    Fn(usize),
}

/// The reader's state between two tokens: what is open, what is in scope.
#[derive(Clone, Debug)]
struct State<'s> {
    frames: Vec<Frame>,
    top: Top,
    owner: Option<Owner>,
    prev: Option<(Token<'s>, Span)>,
    prev2: Option<Token<'s>>,
    /// What the last `}` closed.
    closed: Option<Kind>,
    /// What the next `{` opens.
    opener: Opener,
    /// A `let`'s name: in scope after its `;`, not in its own initialiser.
    pending_let: Option<String>,
    /// Names the next `{` brings into scope (a `for`'s counter).
    pending_scope: Vec<(String, Local)>,
}

impl<'s> State<'s> {
    fn new() -> Self {
        State {
            frames: Vec::new(),
            top: Top::None,
            owner: None,
            prev: None,
            prev2: None,
            closed: None,
            opener: Opener::Other,
            pending_let: None,
            pending_scope: Vec::new(),
        }
    }

    /// An item's keyword: whatever was left open before it never closed
    /// (the parser recovers at the same keywords).
    fn reset(&mut self, top: Top) {
        self.frames.clear();
        self.top = top;
        self.owner = None;
        self.pending_let = None;
        self.pending_scope.clear();
        self.opener = Opener::Other;
    }

    fn in_brace(&self) -> bool {
        self.frames.iter().any(Frame::brace)
    }

    fn step(&mut self, t: Token<'s>, span: Span, out: &mut Outline) {
        use Token as T;
        let prev = self.prev.map(|p| p.0);
        match t {
            T::Litmus => {
                self.reset(Top::Header);
                out.header = true;
            }
            T::Shared => self.reset(Top::Shared),
            T::Thread => {
                self.reset(Top::Thread);
                out.threads.push(ThreadDecl::default());
            }
            T::Fn => {
                self.reset(Top::Fn);
                out.fns.push(FnDecl::default());
            }
            T::Exists | T::Forall => self.reset(Top::Final),
            T::Str(_) if self.top == Top::Header => self.top = Top::None,
            T::Ident(s) => self.ident(s, out),
            T::LBrace => self.open_brace(out),
            T::RBrace => self.close_brace(),
            T::LParen => {
                let kind = self.paren_kind();
                self.frames.push(Frame { kind: Kind::Paren(kind, 0), names: Vec::new() });
            }
            T::RParen => self.close(|k| matches!(k, Kind::Paren(..))),
            T::LBracket => {
                if self.top == Top::Shared && self.frames.is_empty() {
                    if let (Some(T::Ident(_)), Some(last)) = (prev, out.shared.last_mut()) {
                        last.1 = true;
                    }
                }
                self.frames.push(Frame { kind: Kind::Bracket, names: Vec::new() });
            }
            T::RBracket => self.close(|k| *k == Kind::Bracket),
            T::Comma => {
                if let Some(Frame { kind: Kind::Paren(_, n), .. }) = self.frames.last_mut() {
                    *n += 1;
                }
            }
            T::Semi => self.semi(),
            T::If => self.opener = Opener::If,
            T::Else => self.opener = Opener::Else,
            T::While | T::For => self.opener = Opener::Other,
            _ => {}
        }
        if prev == Some(T::Return) && t != T::Semi {
            if let Some(Owner::Fn(i)) = self.owner {
                out.fns[i].value = true;
            }
        }
        self.prev2 = prev;
        self.prev = Some((t, span));
    }

    fn ident(&mut self, s: &str, out: &mut Outline) {
        use Token as T;
        let top_level = self.frames.is_empty();
        match self.prev.map(|p| p.0) {
            Some(T::Thread) if top_level => {
                if let Some(t) = out.threads.last_mut() {
                    t.name = s.to_string();
                }
            }
            Some(T::Fn) if top_level => {
                if let Some(f) = out.fns.last_mut() {
                    f.name = s.to_string();
                }
            }
            Some(T::Shared | T::Comma) if top_level && self.top == Top::Shared => out.shared.push((s.into(), false)),
            Some(T::LParen | T::Comma)
                if matches!(self.frames.last(), Some(Frame { kind: Kind::Paren(Paren::Params, _), .. })) =>
            {
                if let Some(f) = out.fns.last_mut() {
                    f.params.push(s.to_string());
                }
            }
            Some(p @ (T::Let | T::For)) if self.in_brace() => {
                if let Some(Owner::Thread(i)) = self.owner {
                    let regs = &mut out.threads[i].regs;
                    if !regs.iter().any(|r| r == s) {
                        regs.push(s.to_string());
                    }
                }
                if p == T::Let {
                    self.pending_let = Some(s.to_string());
                } else {
                    self.pending_scope.push((s.to_string(), Local::Reg));
                }
            }
            _ => {}
        }
    }

    fn paren_kind(&self) -> Paren {
        use Token as T;
        if self.top == Top::Final && !self.in_brace() {
            return Paren::Cond;
        }
        match self.prev.map(|p| p.0) {
            Some(T::Ident(_)) if self.frames.is_empty() && self.top == Top::Fn => Paren::Params,
            Some(T::Ident(s)) => Paren::Call(s.to_string()),
            Some(T::Cas) => Paren::Call("cas".into()),
            Some(T::Xchg) => Paren::Call("xchg".into()),
            Some(T::FetchAdd) => Paren::Call("fetch_add".into()),
            Some(T::Lock) => Paren::Call("lock".into()),
            Some(T::Unlock) => Paren::Call("unlock".into()),
            Some(T::Await) => Paren::Await,
            Some(T::If | T::While | T::Assert | T::Assume) => Paren::Header,
            _ => Paren::Group,
        }
    }

    fn open_brace(&mut self, out: &Outline) {
        let mut names = std::mem::take(&mut self.pending_scope);
        let kind = if self.frames.is_empty() {
            match self.top {
                Top::Thread => {
                    self.owner = out.threads.len().checked_sub(1).map(Owner::Thread);
                    Kind::Body
                }
                Top::Fn => {
                    self.owner = out.fns.len().checked_sub(1).map(Owner::Fn);
                    if let Some(f) = out.fns.last() {
                        names.extend(f.params.iter().map(|p| (p.clone(), Local::Param)));
                    }
                    Kind::Body
                }
                Top::Shared => Kind::Init,
                _ => Kind::Block(Opener::Other),
            }
        } else if self.frames.iter().any(|f| f.kind == Kind::Init) {
            Kind::Init
        } else {
            Kind::Block(self.opener)
        };
        self.opener = Opener::Other;
        self.frames.push(Frame { kind, names });
    }

    fn close_brace(&mut self) {
        // A stray `}` closes nothing.
        let Some(at) = self.frames.iter().rposition(Frame::brace) else { return };
        let kind = self.frames[at].kind.clone();
        self.frames.truncate(at);
        self.pending_let = None;
        if kind == Kind::Body {
            self.owner = None;
            self.top = Top::None;
        }
        self.closed = Some(kind);
    }

    /// Close the innermost bracket of a kind, unless a block is in the way.
    fn close(&mut self, is: impl Fn(&Kind) -> bool) {
        if let Some(at) = self.frames.iter().rposition(|f| is(&f.kind) || f.brace()) {
            if is(&self.frames[at].kind) {
                self.frames.truncate(at);
            }
        }
    }

    fn semi(&mut self) {
        // A `;` ends the statement: brackets it left open never closed.
        while self.frames.last().is_some_and(|f| !f.brace()) {
            self.frames.pop();
        }
        if let Some(name) = self.pending_let.take() {
            if let Some(f) = self.frames.last_mut() {
                f.names.push((name, Local::Reg));
            }
        }
        if self.frames.is_empty() && matches!(self.top, Top::Shared | Top::Final) {
            self.top = Top::None;
        }
    }

    /// The names in scope, outermost first.
    fn locals(&self) -> Vec<(String, Local)> {
        let mut out: Vec<(String, Local)> = Vec::new();
        for (n, l) in self.frames.iter().flat_map(|f| f.names.iter()) {
            if !out.iter().any(|(m, _)| m == n) {
                out.push((n.clone(), *l));
            }
        }
        out
    }

    fn in_await(&self) -> bool {
        self.frames.iter().any(|f| matches!(f.kind, Kind::Paren(Paren::Await, _)))
    }
}

/// The state just before the first token not wholly before `at`, and the
/// outline of the whole file. `None` when `at` is inside a comment or string.
fn read(text: &str, at: usize) -> Option<(State<'_>, Outline)> {
    let (tokens, comments) = lex_with_comments(text);
    for c in &comments {
        let s = &text[c.start..c.end];
        let closed = s.starts_with("/*") && s.len() >= 4 && s.ends_with("*/");
        if c.start < at && (at < c.end || (at == c.end && !closed)) {
            return None;
        }
    }
    let mut state = State::new();
    let mut out = Outline::default();
    let mut before = None;
    for &(t, span) in &tokens {
        if before.is_none() && span.end > at {
            let unterminated = t == Token::Error && text[span.start..].starts_with('"');
            let inside = matches!(t, Token::Str(_) | Token::Name(_)) && span.start < at;
            if inside || (unterminated && span.start < at) {
                return None;
            }
            before = Some(state.clone());
        }
        state.step(t, span, &mut out);
    }
    Some((before.unwrap_or(state), out))
}

/// The innermost call open at `offset` (parentheses that only group are
/// looked through), how many commas of it come before, and the outline.
pub(crate) fn call_at(text: &str, offset: usize) -> Option<(String, usize, Outline)> {
    let (st, outline) = read(text, floor_char(text, offset))?;
    for f in st.frames.iter().rev() {
        match &f.kind {
            Kind::Paren(Paren::Call(name), commas) => return Some((name.clone(), *commas, outline)),
            Kind::Paren(..) | Kind::Bracket => {}
            _ => return None,
        }
    }
    None
}

/// Where the cursor is, in the native dialect.
#[derive(Debug, PartialEq, Eq)]
enum Ctx {
    /// Nothing to offer: naming something, a number, after an operand.
    Nothing,
    /// An access's memory order, after its `@`.
    Order,
    /// An item's start. `tilde`: after a `~`.
    TopLevel { tilde: bool },
    /// A statement's start; `after_if`: an `else` may go here; `after_else`:
    /// only `if` or a block.
    Stmt { after_if: bool, after_else: bool },
    /// Where an expression goes; `lvalue`: a location (`cas(`, `lock(`).
    Expr { lvalue: bool },
    /// After `fence`.
    FenceKind,
    /// The final condition.
    Cond,
    /// After `THREAD:` in the final condition.
    CondRegs(Option<usize>),
}

fn context(text: &str, st: &State<'_>, start: usize, outline: &Outline) -> Ctx {
    use Token as T;
    let prev = st.prev.map(|p| p.0);
    if prev == Some(T::At) {
        return Ctx::Order;
    }
    if prev == Some(T::Colon) {
        let thread = match st.prev2 {
            Some(T::Ident(name)) => outline.threads.iter().position(|t| t.name == name),
            Some(T::Int(n)) => n.parse::<usize>().ok().filter(|&i| i < outline.threads.len()),
            _ => return Ctx::Nothing,
        };
        return Ctx::CondRegs(thread);
    }
    // Did the previous token end on an earlier line (a missing `;`)?
    let new_line = st.prev.is_some_and(|(_, s)| text[s.end.min(start)..start].contains(['\n', '\r']));
    let operand = matches!(
        prev,
        Some(T::Ident(_) | T::Int(_) | T::True | T::False | T::RParen | T::RBracket | T::Name(_) | T::Str(_))
    );
    let Some(inner) = st.frames.last() else {
        return match st.top {
            Top::None if prev == Some(T::Tilde) => Ctx::TopLevel { tilde: true },
            Top::None => Ctx::TopLevel { tilde: false },
            Top::Header if operand && new_line => Ctx::TopLevel { tilde: false },
            Top::Final if prev == Some(T::RParen) => Ctx::Nothing,
            Top::Final => Ctx::Cond,
            _ => Ctx::Nothing,
        };
    };
    if st.top == Top::Final && !st.in_brace() {
        return if operand { Ctx::Nothing } else { Ctx::Cond };
    }
    match &inner.kind {
        Kind::Init => Ctx::Nothing,
        Kind::Body | Kind::Block(_) => match prev {
            None | Some(T::LBrace | T::Semi) => Ctx::Stmt { after_if: false, after_else: false },
            Some(T::RBrace) => Ctx::Stmt {
                after_if: matches!(st.closed, Some(Kind::Block(Opener::If | Opener::Else))),
                after_else: false,
            },
            Some(T::Else) => Ctx::Stmt { after_if: false, after_else: true },
            Some(T::Fence) => Ctx::FenceKind,
            Some(T::RParen) if !new_line => Ctx::Nothing,
            _ if operand => {
                if new_line {
                    Ctx::Stmt { after_if: false, after_else: false }
                } else {
                    Ctx::Nothing
                }
            }
            Some(
                T::Let | T::For | T::In | T::Bound | T::DotDot | T::Colon | T::Tilde | T::Error | T::Fn | T::Thread,
            ) => Ctx::Nothing,
            _ => Ctx::Expr { lvalue: false },
        },
        Kind::Paren(p, commas) => match p {
            Paren::Params => Ctx::Nothing,
            _ if operand => Ctx::Nothing,
            Paren::Call(f) if *commas == 0 && builtin(f).is_some() => Ctx::Expr { lvalue: true },
            _ => Ctx::Expr { lvalue: false },
        },
        Kind::Bracket if operand => Ctx::Nothing,
        Kind::Bracket => Ctx::Expr { lvalue: false },
    }
}

/// The native items at `start` (the word's start), and where their
/// replacement starts (before a `~` typed for `~exists`).
fn native(a: &Analysis, text: &str, start: usize) -> (Vec<Item>, usize) {
    let Some((st, outline)) = read(text, start) else { return (Vec::new(), start) };
    let ctx = context(text, &st, start, &outline);
    let mut out = Vec::new();
    let owner = st.owner;
    match ctx {
        Ctx::Nothing => {}
        Ctx::Order => {
            for (k, d) in ORDERS {
                out.push(item(k, ItemKind::Keyword, *d));
            }
        }
        Ctx::TopLevel { tilde: true } => {
            // Replace the `~` too, so the item's `~exists` is not doubled;
            // only across blanks, so the edit stays on the cursor's line.
            let tilde = st.prev.map_or(start, |p| p.1.start);
            if text.get(tilde + 1..start).is_some_and(|gap| gap.chars().all(|c| c == ' ' || c == '\t')) {
                out.push(final_item("~exists", "the final condition: no execution ends where it holds"));
                return (out, tilde);
            }
            out.push(final_item("exists", "after `~`: no execution ends where it holds"));
        }
        Ctx::TopLevel { tilde: false } => {
            if !outline.header && st.prev.is_none() {
                out.push(snippet(
                    "litmus",
                    ItemKind::Snippet,
                    "the test's header",
                    "litmus ",
                    "litmus ${1:NAME} \"${2:what it tests}\"\n$0",
                ));
            }
            let next = (0..).map(|i| format!("P{i}")).find(|n| !outline.threads.iter().any(|t| &t.name == n));
            let next = next.unwrap_or_default();
            out.push(snippet(
                "thread",
                ItemKind::Snippet,
                "a thread",
                "thread ",
                &format!("thread ${{1:{next}}} {{\n\t$0\n}}"),
            ));
            out.push(snippet("shared", ItemKind::Keyword, "shared locations", "shared ", "shared ${1:x} = ${2:0};"));
            out.push(snippet(
                "fn",
                ItemKind::Snippet,
                "a function, inlined at each call",
                "fn ",
                "fn ${1:name}($2) {\n\t$0\n}",
            ));
            out.push(final_item("exists", "the final condition: some execution ends where it holds"));
            out.push(final_item("~exists", "the final condition: no execution ends where it holds"));
            out.push(final_item("forall", "the final condition: every execution ends where it holds"));
        }
        Ctx::Stmt { after_else: true, .. } => {
            out.push(snippet("if", ItemKind::Snippet, "else if", "if ", "if ($1) {\n\t$0\n}"));
        }
        Ctx::Stmt { after_if, .. } => {
            names(a, &st, &outline, owner, true, &mut out);
            if after_if {
                out.push(snippet("else", ItemKind::Snippet, "else block", "else ", "else {\n\t$0\n}"));
            }
            statements(owner, &mut out);
        }
        Ctx::Expr { lvalue: true } => shared(a, &outline, &mut out),
        Ctx::Expr { lvalue: false } => {
            names(a, &st, &outline, owner, false, &mut out);
            out.push(item("true", ItemKind::Constant, "1"));
            out.push(item("false", ItemKind::Constant, "0"));
        }
        Ctx::FenceKind => {
            for (k, d) in FENCES.iter().chain(&ORDERS[1..]) {
                out.push(item(k, ItemKind::Keyword, *d));
            }
        }
        Ctx::Cond => {
            for t in &outline.threads {
                for r in &t.regs {
                    let label = format!("{}:{r}", t.name);
                    out.push(Item {
                        doc: reg_doc(a, r, &t.name),
                        ..item(&label, ItemKind::Register, reg_detail(&t.name))
                    });
                }
            }
            shared(a, &outline, &mut out);
            for t in outline.threads.iter().filter(|t| !t.name.is_empty()) {
                out.push(item(&t.name, ItemKind::Thread, format!("thread {}", t.name)));
            }
        }
        Ctx::CondRegs(thread) => {
            if let Some(t) = thread.and_then(|i| outline.threads.get(i)) {
                for r in &t.regs {
                    out.push(Item { doc: reg_doc(a, r, &t.name), ..item(r, ItemKind::Register, reg_detail(&t.name)) });
                }
            }
        }
    }
    (out, start)
}

/// C11's memory orders, weakest first: what `x@…` and `fence …;` take.
const ORDERS: &[(&str, &str)] = &[
    ("relaxed", "atomic, no order (C11 `memory_order_relaxed`)"),
    ("acquire", "later accesses stay after it (C11 `memory_order_acquire`)"),
    ("release", "earlier accesses stay before it (C11 `memory_order_release`)"),
    ("acq_rel", "acquire and release (C11 `memory_order_acq_rel`)"),
    ("seq_cst", "one total order of seq_cst accesses and fences (C11 `memory_order_seq_cst`)"),
];

const FENCES: &[(&str, &str)] = &[
    ("wr", "orders a store before a later load"),
    ("ww", "orders stores"),
    ("rr", "orders loads (PSLO)"),
    ("full", "orders everything (as `fence;`)"),
];

fn final_item(word: &str, detail: &str) -> Item {
    snippet(word, ItemKind::Keyword, detail, &format!("{word} "), &format!("{word} ($0);"))
}

fn reg_detail(thread: &str) -> String {
    format!("register of {thread}")
}

/// The register's declaration, from the analysis when it has it.
fn reg_doc(a: &Analysis, name: &str, owner: &str) -> Option<String> {
    let s = a
        .symbols
        .list
        .iter()
        .find(|s| s.kind == SymbolKind::Register && s.name == name && s.scope.as_deref() == Some(owner))?;
    let decl = s.detail.split("  (").next().unwrap_or(&s.detail);
    Some(format!("```litmus\n{decl}\n```"))
}

/// The shared locations, with the analysis's detail (`shared x = 0`).
fn shared(a: &Analysis, outline: &Outline, out: &mut Vec<Item>) {
    for (name, array) in &outline.shared {
        let detail = a
            .symbols
            .list
            .iter()
            .find(|s| matches!(s.kind, SymbolKind::Shared | SymbolKind::Array) && &s.name == name)
            .map(|s| s.detail.clone())
            .unwrap_or_else(|| format!("shared {name}{}", if *array { "[…]" } else { "" }));
        out.push(item(name, ItemKind::Shared, detail));
    }
}

/// The names in scope in a body: its registers and parameters, the shared
/// locations, the functions and the RMWs (as calls; `stmt`: as statements).
fn names(a: &Analysis, st: &State<'_>, outline: &Outline, owner: Option<Owner>, stmt: bool, out: &mut Vec<Item>) {
    let (owner_name, fn_label) = match owner {
        Some(Owner::Thread(i)) => (outline.threads[i].name.clone(), None),
        Some(Owner::Fn(i)) => (outline.fns[i].name.clone(), Some(format!("fn {}", outline.fns[i].name))),
        None => (String::new(), None),
    };
    for (n, l) in st.locals() {
        match l {
            Local::Reg => out.push(Item {
                doc: reg_doc(a, &n, &owner_name),
                ..item(&n, ItemKind::Register, reg_detail(&owner_name))
            }),
            Local::Param => out.push(item(
                &n,
                ItemKind::Param,
                format!("parameter of {}", fn_label.as_deref().unwrap_or("the function")),
            )),
        }
    }
    shared(a, outline, out);
    let in_await = st.in_await();
    let end = if stmt { ";" } else { "" };
    for f in &outline.fns {
        // Functions may not call themselves; an `await` may only read.
        let own = matches!(owner, Some(Owner::Fn(i)) if outline.fns[i].name == f.name);
        if f.name.is_empty() || own || in_await || (!stmt && !f.value) {
            continue;
        }
        let args: Vec<String> = f.params.iter().enumerate().map(|(k, p)| format!("${{{}:{p}}}", k + 1)).collect();
        let mut i = snippet(
            &f.name,
            ItemKind::Function,
            &format!("fn {}({})", f.name, f.params.join(", ")),
            &format!("{}()", f.name),
            &format!("{}({}){end}$0", f.name, args.join(", ")),
        );
        i.doc = Some(if f.value { "Returns a value; inlined at the call." } else { "Inlined at the call." }.into());
        out.push(i);
    }
    for b in BUILTINS.iter().filter(|b| b.value) {
        // An `await` condition may only read: of the RMWs, only `cas`.
        if in_await && b.name != "cas" {
            continue;
        }
        out.push(builtin_item(b, end));
    }
}

fn builtin_item(b: &Builtin, end: &str) -> Item {
    let params: Vec<&str> = b.params.iter().map(|p| p.0).collect();
    let args: Vec<String> = params.iter().enumerate().map(|(k, p)| format!("${{{}:{p}}}", k + 1)).collect();
    let kind = if b.value { ItemKind::Builtin } else { ItemKind::Keyword };
    Item {
        doc: Some(b.doc.to_string()),
        ..snippet(
            b.name,
            kind,
            &format!("{}({})", b.name, params.join(", ")),
            &format!("{}(", b.name),
            &format!("{}({}){end}$0", b.name, args.join(", ")),
        )
    }
}

/// The statement keywords, as snippets; `return` by its owner's kind.
fn statements(owner: Option<Owner>, out: &mut Vec<Item>) {
    use ItemKind::{Keyword as K, Snippet as S};
    out.push(snippet("let", K, "a new register", "let ", "let ${1:r} = $0;"));
    out.push(snippet("if", S, "if block", "if ", "if ($1) {\n\t$0\n}"));
    out.push(snippet("while", S, "loop, bounded by the loop bound", "while ", "while ($1) {\n\t$0\n}"));
    out.push(snippet("for", S, "counted loop", "for ", "for ${1:k} in ${2:0}..${3:2} {\n\t$0\n}"));
    out.push(snippet("await", K, "wait until the condition holds", "await ", "await ($1);$0"));
    out.push(snippet("assert", K, "checked in every execution", "assert ", "assert ($1);$0"));
    out.push(snippet("assume", K, "drop the executions where it fails", "assume ", "assume ($1);$0"));
    out.push(snippet("fence", K, "full fence", "fence;", "fence;$0"));
    for (k, d) in FENCES.iter().take(3) {
        out.push(snippet(&format!("fence {k}"), K, d, &format!("fence {k};"), &format!("fence {k};$0")));
    }
    for b in BUILTINS.iter().filter(|b| !b.value) {
        out.push(builtin_item(b, ";"));
    }
    match owner {
        Some(Owner::Fn(_)) => out.push(snippet("return", K, "return from the function", "return ", "return $0;")),
        // `return;` in a thread ends it.
        _ => out.push(snippet("return", K, "end the thread", "return;", "return;$0")),
    }
}

// ---------------------------------------------------------------- herd

const X86: &[(&str, &str)] = &[
    ("MOV", "load, store or move: MOV [x],$1 · MOV EAX,[x]"),
    ("XCHG", "atomic exchange with memory (a full fence)"),
    ("LOCK XADD", "atomic fetch-and-add (a full fence)"),
    ("LOCK CMPXCHG", "atomic compare-and-swap with EAX (a full fence)"),
    ("LOCK ADD", "atomic add to memory (a full fence)"),
    ("LOCK INC", "atomic increment (a full fence)"),
    ("LOCK DEC", "atomic decrement (a full fence)"),
    ("ADD", "add"),
    ("SUB", "subtract"),
    ("INC", "increment"),
    ("DEC", "decrement"),
    ("AND", "bitwise and"),
    ("OR", "bitwise or"),
    ("XOR", "bitwise exclusive or"),
    ("CMP", "compare: sets the flags"),
    ("TEST", "bitwise test: sets the flags"),
    ("JMP", "jump to a label"),
    ("JE", "jump if equal"),
    ("JNE", "jump if not equal"),
    ("MFENCE", "full fence (fence full)"),
    ("SFENCE", "store fence (fence ww)"),
    ("LFENCE", "load fence (fence rr)"),
    ("NOP", "no operation"),
];

const HERD_FINAL: &[(&str, &str)] = &[
    ("exists", "some execution ends where it holds"),
    ("~exists", "no execution ends where it holds"),
    ("forall", "every execution ends where it holds"),
    ("locations", "the locations to show in the outcomes"),
    ("filter", "only the executions where it holds"),
];

fn starts_word(line: &str, w: &str) -> bool {
    line.trim_start().strip_prefix(w).is_some_and(|r| !r.starts_with(is_word))
}

/// herd x86: by the cursor's line — a cell of the thread table (its column
/// is its thread), the final condition, or the preamble.
fn herd(a: &Analysis, text: &str, start: usize) -> Vec<Item> {
    let line_start = text[..start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let before = &text[line_start..start];
    let lines: Vec<&str> = text[..start].split(['\n', '\r']).collect();
    let in_final = lines.iter().any(|l| HERD_FINAL.iter().any(|(w, _)| starts_word(l, w)));
    let header = |l: &&str| starts_word(l, "P0") && (l.contains('|') || l.trim_end().ends_with(';'));
    let in_table = lines[..lines.len() - 1].iter().any(header) && !header(&before);
    let regs_of = |t: &str| -> Vec<&litmus_dsl::Symbol> {
        a.symbols.list.iter().filter(|s| s.kind == SymbolKind::Register && s.scope.as_deref() == Some(t)).collect()
    };
    let locations = |out: &mut Vec<Item>| {
        for s in a.symbols.list.iter().filter(|s| matches!(s.kind, SymbolKind::Shared | SymbolKind::Array)) {
            out.push(item(&s.name, ItemKind::Shared, s.detail.clone()));
        }
    };
    let mut out = Vec::new();
    if in_final {
        // `1:` names thread P1: its registers only.
        if let Some(n) = before.strip_suffix(':').map(|b| &b[word_start(b, b.len())..]) {
            let t = if n.chars().all(|c| c.is_ascii_digit()) { format!("P{n}") } else { n.to_string() };
            for s in regs_of(&t) {
                out.push(item(&s.name, ItemKind::Register, reg_detail(&t)));
            }
            return out;
        }
        for s in a.symbols.list.iter().filter(|s| s.kind == SymbolKind::Register) {
            let t = s.scope.as_deref().unwrap_or_default();
            let n = t.strip_prefix('P').unwrap_or(t);
            out.push(item(&format!("{n}:{}", s.name), ItemKind::Register, reg_detail(t)));
        }
        locations(&mut out);
        for (w, d) in HERD_FINAL {
            out.push(item(w, ItemKind::Keyword, *d));
        }
        return out;
    }
    if !in_table {
        locations(&mut out);
        return out;
    }
    let column = before.matches('|').count();
    let thread = format!("P{column}");
    let cell = before.rsplit('|').next().unwrap_or_default().trim();
    let mnemonic = |out: &mut Vec<Item>, name: &str, detail: &str| {
        let plain = format!("{name} ");
        out.push(Item { insert: plain, ..item(name, ItemKind::Keyword, detail) });
    };
    if cell.is_empty() {
        for (m, d) in X86 {
            mnemonic(&mut out, m, d);
        }
        if column == 0 {
            for (w, d) in HERD_FINAL {
                out.push(item(w, ItemKind::Keyword, *d));
            }
        }
    } else if cell.eq_ignore_ascii_case("LOCK") {
        for (m, d) in X86.iter().filter_map(|(m, d)| Some((m.strip_prefix("LOCK ")?, d))) {
            mnemonic(&mut out, m, d);
        }
    } else {
        // Operands: the column's registers, the usual ones, the locations.
        let mut regs: Vec<String> = regs_of(&thread).iter().map(|s| s.name.clone()).collect();
        for r in ["EAX", "EBX", "ECX", "EDX"] {
            if !regs.iter().any(|x| x.eq_ignore_ascii_case(r)) {
                regs.push(r.to_string());
            }
        }
        for r in regs {
            out.push(item(&r, ItemKind::Register, reg_detail(&thread)));
        }
        locations(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SB: &str = "litmus SB\nshared x = 0;\nshared y = 0;\n\nfn inc(a, b) {\n  let t = a + b;\n  return t;\n}\n\nthread P0 {\n  x = 1;\n  let r0 = y;\n}\n\nthread P1 {\n  y = 1;\n  let r1 = x;\n  let r2 = x;\n}\n\nexists (P0:r0 == 0 && P1:r1 == 0);\n";

    /// `text` with `|` marking the cursor: the completion there.
    fn at(marked: &str) -> (String, Completion) {
        let offset = marked.find('|').expect("a cursor");
        let text = format!("{}{}", &marked[..offset], &marked[offset + 1..]);
        let a = litmus_dsl::analyze(&text);
        let c = complete(&a, &text, offset);
        (text, c)
    }

    fn labels(c: &Completion) -> Vec<&str> {
        let mut items: Vec<&Item> = c.items.iter().collect();
        items.sort_by(|a, b| a.sort.cmp(&b.sort));
        items.iter().map(|i| i.label.as_str()).collect()
    }

    fn cursor_in(text: &str, needle: &str, marker: &str) -> String {
        let at = text.find(needle).unwrap() + needle.find(marker).unwrap();
        format!("{}|{}", &text[..at], &text[at..])
    }

    #[test]
    fn top_level_offers_items_as_snippets_and_no_statements() {
        let (_, c) = at(&format!("{SB}|"));
        let l = labels(&c);
        for want in ["thread", "shared", "fn", "exists", "~exists", "forall"] {
            assert!(l.contains(&want), "{want} in {l:?}");
        }
        for not in ["let", "while", "r0", "x", "return"] {
            assert!(!l.contains(&not), "{not} in {l:?}");
        }
        let thread = c.items.iter().find(|i| i.label == "thread").unwrap();
        // The next free thread name.
        assert_eq!(thread.snippet.as_deref(), Some("thread ${1:P2} {\n\t$0\n}"));
        assert_eq!(thread.kind, ItemKind::Snippet);
    }

    #[test]
    fn a_thread_body_offers_statements_and_its_registers_only() {
        let (_, c) = at(&cursor_in(SB, "  let r2 = x;", "let r2"));
        let l = labels(&c);
        for want in ["r1", "x", "y", "let", "if", "while", "await", "fence", "fence wr", "assert", "cas", "inc"] {
            assert!(l.contains(&want), "{want} in {l:?}");
        }
        // Not yet declared, another thread's, top-level, or a function's.
        for not in ["r2", "r0", "t", "a", "shared", "thread", "fn", "exists"] {
            assert!(!l.contains(&not), "{not} in {l:?}");
        }
        assert_eq!(c.items.iter().find(|i| i.label == "return").unwrap().insert, "return;");
        // Names first.
        assert_eq!(l[0], "r1");
        let w = c.items.iter().find(|i| i.label == "while").unwrap();
        assert_eq!(w.snippet.as_deref(), Some("while ($1) {\n\t$0\n}"));
    }

    #[test]
    fn a_function_body_has_its_parameters_and_return() {
        let (_, c) = at(&cursor_in(SB, "  return t;", "return"));
        let l = labels(&c);
        for want in ["a", "b", "t", "x", "return"] {
            assert!(l.contains(&want), "{want} in {l:?}");
        }
        assert!(!l.contains(&"inc"), "no recursion: {l:?}");
        let a = c.items.iter().find(|i| i.label == "a").unwrap();
        assert_eq!((a.kind, a.detail.as_str()), (ItemKind::Param, "parameter of fn inc"));
        assert_eq!(c.items.iter().find(|i| i.label == "return").unwrap().snippet.as_deref(), Some("return $0;"));
    }

    #[test]
    fn an_expression_offers_names_and_no_statement_keywords() {
        let (_, c) = at(&cursor_in(SB, "let r2 = x;", ";"));
        let l = labels(&c);
        for want in ["r1", "x", "y", "cas", "xchg", "fetch_add", "inc", "true"] {
            assert!(l.contains(&want), "{want} in {l:?}");
        }
        for not in ["let", "while", "fence", "return", "shared", "r2"] {
            assert!(!l.contains(&not), "{not} in {l:?}");
        }
        assert_eq!(l[0], "x", "the typed prefix first: {l:?}");
        let cas = c.items.iter().find(|i| i.label == "cas").unwrap();
        assert_eq!(cas.snippet.as_deref(), Some("cas(${1:loc}, ${2:expected}, ${3:new})$0"));
        assert_eq!(cas.detail, "cas(loc, expected, new)");
        let inc = c.items.iter().find(|i| i.label == "inc").unwrap();
        assert_eq!((inc.kind, inc.detail.as_str()), (ItemKind::Function, "fn inc(a, b)"));
    }

    #[test]
    fn an_rmw_s_first_argument_is_a_location() {
        let (_, c) = at("litmus T\nshared x = 0;\nthread P0 {\n  let r = 1;\n  let o = cas(|\n}\n");
        assert_eq!(labels(&c), ["x"]);
        let (_, c) = at("litmus T\nshared x = 0;\nthread P0 {\n  let r = 1;\n  let o = cas(x, |\n}\n");
        assert!(labels(&c).contains(&"r"));
        let (_, c) = at("litmus T\nshared x = 0;\nthread P0 {\n  await (x == 1 && |\n}\n");
        let l = labels(&c);
        assert!(l.contains(&"cas") && !l.contains(&"fetch_add"), "{l:?}");
    }

    #[test]
    fn the_final_condition_offers_thread_registers() {
        let (text, c) = at(&cursor_in(SB, "P1:r1 == 0", "1 == 0"));
        // After `P1:` only P1's registers, replacing the word typed.
        assert_eq!(labels(&c), ["r1", "r2"]);
        assert_eq!(&text[c.replace.start..c.replace.end], "r");
        let (text, c) = at(&cursor_in(SB, "P1:r1 == 0", ":r1"));
        assert_eq!(&labels(&c)[..3], ["P1:r1", "P1:r2", "P1"]);
        assert_eq!(&text[c.replace.start..c.replace.end], "P1");
        let (_, c) = at(&cursor_in(SB, "(P0:r0", "P0:"));
        let l = labels(&c);
        for want in ["P0:r0", "P1:r1", "P1:r2", "x", "P0"] {
            assert!(l.contains(&want), "{want} in {l:?}");
        }
        assert!(!l.iter().any(|l| ["let", "shared", "return", "r0", "thread"].contains(l)), "{l:?}");
        // By index, as herd writes it.
        let (_, c) = at(&SB.replace("P1:r1 ==", "1:| =="));
        assert_eq!(labels(&c), ["r1", "r2"]);
    }

    #[test]
    fn mid_typing_in_a_broken_file() {
        let broken = "litmus T\nshared x = 0;\nthread P0 {\n  let r0 = x;\n  let r1 = \n}\nthread P1 {\n  x = 1\n  |\n";
        let (_, c) = at(broken);
        let l = labels(&c);
        assert!(l.contains(&"let") && l.contains(&"x") && !l.contains(&"r0"), "{l:?}");
        let (_, c) = at("litmus T\nshared x = 0;\nthread P0 {\n  let r0 = x;\n  let r1 = |\n}\nexists (P0:r");
        let l = labels(&c);
        assert!(l.contains(&"r0") && !l.contains(&"r1") && !l.contains(&"let"), "{l:?}");
        let (_, c) = at("litmus T\nshared x = 0;\nthread P0 {\n  let r0 = x;\n  let r1 = \n}\nexists (P0:r|");
        assert_eq!(labels(&c), ["r0", "r1"]);
        // Never a panic, wherever the cursor is.
        for text in [SB, broken, "litmus", "thread P0 { let", "exists (0:", "shared a[2] = {1, |", "/* é"] {
            let a = litmus_dsl::analyze(text);
            for o in 0..=text.len() + 2 {
                complete(&a, text, o);
            }
        }
    }

    /// Every example, the cursor at every char, and each cut short there
    /// (typing it out): no panic, and every item replaces text on one line
    /// that ends at the cursor.
    #[test]
    fn every_offset_of_every_example() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        files.push(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/corpus/herd-x86/catalogue__x86__tests__MP.litmus"),
        );
        for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "litmus")) {
            let text = std::fs::read_to_string(path).unwrap();
            let a = litmus_dsl::analyze(&text);
            for (o, _) in text.char_indices() {
                let c = complete(&a, &text, o);
                assert!(c.replace.end == o && !text[c.replace.start..o].contains('\n'), "{path:?} at {o}");
                crate::signature::signature_help(&text, a.dialect, o);
                if o % 7 == 0 {
                    let cut = &text[..o];
                    complete(&litmus_dsl::analyze(cut), cut, o);
                }
            }
        }
    }

    #[test]
    fn nothing_in_comments_strings_names_or_numbers() {
        for marked in [
            "litmus T \"a te|st\"\n",
            "litmus T\n// a comm|ent\n",
            "litmus T\nthread P0 {\n  /* r| */\n}\n",
            "litmus T\nthread P0 {\n  let r|\n}\n",
            "litmus T\nthread P0 {\n  x = 1|\n}\n",
            "litmus T\nthread |",
            "litmus T\nfn f(a|",
        ] {
            let (_, c) = at(marked);
            assert!(c.items.is_empty(), "{marked}: {:?}", labels(&c));
        }
    }

    #[test]
    fn fence_kinds_else_and_tilde() {
        let (_, c) = at("litmus T\nthread P0 {\n  fence |\n}\n");
        assert_eq!(labels(&c), ["wr", "ww", "rr", "full", "acquire", "release", "acq_rel", "seq_cst"]);
        // An access's order, after its `@`.
        let (_, c) = at("litmus T\natomic x;\nthread P0 {\n  let r = x@|\n}\n");
        assert_eq!(labels(&c), ["relaxed", "acquire", "release", "acq_rel", "seq_cst"]);
        let (_, c) = at("litmus T\nthread P0 {\n  if (1) {\n  }\n  e|\n}\n");
        assert_eq!(labels(&c)[0], "else");
        let (text, c) = at("litmus T\nshared x;\nthread P0 {\n}\n~ex|");
        assert_eq!(labels(&c), ["~exists"]);
        assert_eq!(&text[c.replace.start..c.replace.end], "~ex");
        let (text, c) = at("litmus T\nshared x;\nthread P0 {\n}\n~\nex|");
        assert_eq!(labels(&c), ["exists"]);
        assert_eq!(&text[c.replace.start..c.replace.end], "ex");
    }

    #[test]
    fn a_matching_name_comes_before_a_matching_keyword() {
        let (_, c) = at("litmus T\nshared x = 0;\nthread P0 {\n  let result = 1;\n  re|\n}\n");
        let l = labels(&c);
        assert_eq!(&l[..2], ["result", "return"], "{l:?}");
    }

    #[test]
    fn herd_cells_have_mnemonics_or_the_column_s_registers() {
        let text = "X86 SB\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EBX,[x] ;\nexists (0:EAX=0 /\\ 1:EBX=0)\n";
        let a = litmus_dsl::analyze(text);
        let line = text.find(" MOV EAX").unwrap();
        let c = complete(&a, text, line + 1);
        let mov = c.items.iter().find(|i| i.label == "MOV").unwrap();
        assert!(mov.detail.contains("load"), "{mov:?}");
        let cell = text.find("MOV EBX,").unwrap() + 4;
        let l: Vec<String> = complete(&a, text, cell).items.into_iter().map(|i| i.label).collect();
        assert_eq!(l[0], "EBX", "{l:?}");
        assert!(!l.contains(&"MOV".to_string()), "{l:?}");
        let c = complete(&a, text, text.find("1:EBX").unwrap() + 2);
        assert_eq!(c.items.iter().map(|i| i.label.as_str()).collect::<Vec<_>>(), ["EBX"]);
    }
}
