//! The formatter (`litmus fmt`, the editor's "Format Document"): one
//! canonical layout for a native file, as rustfmt gives Rust one.
//!
//! It re-emits the token stream with comments in place: one statement per
//! line, two-space indentation by block, `} else {` on one line, spaces
//! around binary operators and after commas, none inside brackets or in
//! `P0:r0`, `0..3`, `-1`, calls; keywords take a space before `(` (`if (`,
//! `await (`), as the examples are written. Blank lines: the author's are
//! kept (at most one in a row), and top-level items of different kinds
//! (header, `shared` declarations, each thread or function, the final
//! condition) are always separated by one. A comment after code keeps its
//! column when it still fits, so hand-aligned comments stay aligned.
//!
//! Empty statements (a lone `;`) are dropped.
//!
//! Only a file without errors is formatted, and the result is checked
//! before it is returned: it must lower to the same program (the
//! `semantic_key`) and keep every comment, or the formatter returns `None`
//! rather than change what the file means.

use super::lexer::{lex_with_comments, Token};
use crate::span::Span;

/// The file in its canonical layout; `None` when it has errors (or, a bug,
/// when the layout would change its meaning or drop a comment).
pub fn format(src: &str) -> Option<String> {
    // A byte-order mark stays where it is: first, outside the layout.
    if let Some(rest) = src.strip_prefix('\u{FEFF}') {
        return format(rest).map(|out| format!("\u{FEFF}{out}"));
    }
    let before = crate::analyze(src);
    let key = before.program.as_ref()?.semantic_key();
    if before.dialect != crate::Dialect::Native {
        return None;
    }
    let out = layout(src);
    let after = crate::analyze(&out);
    let same_program = after.program.as_ref().is_some_and(|p| p.semantic_key() == key);
    // Trailing blanks of a comment's lines (and `\r`) are layout: dropped.
    let comment_texts = |text: &str, spans: &[Span]| -> Vec<String> {
        spans.iter().map(|s| s.text(text).lines().map(str::trim_end).collect::<Vec<_>>().join("\n")).collect()
    };
    let same_comments = comment_texts(src, &before.comments) == comment_texts(&out, &after.comments);
    (same_program && same_comments).then_some(out)
}

#[derive(Clone, Copy)]
enum Piece<'s> {
    Tok(Token<'s>),
    LineComment,
    BlockComment,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Brace {
    Block,
    /// An array's initial values: `{0, 0, -1}` stays on its line.
    List,
}

/// The kinds of top-level item; two in a row of different kinds (or two
/// threads/functions) get a blank line between them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Item {
    Header,
    Shared,
    Code,
    Final,
}

fn item_of(t: Token) -> Option<Item> {
    use Token::*;
    match t {
        Litmus => Some(Item::Header),
        Shared | Atomic => Some(Item::Shared),
        Thread | Fn => Some(Item::Code),
        Exists | Forall | Tilde => Some(Item::Final),
        _ => None,
    }
}

fn needs_blank(prev: Item, next: Item) -> bool {
    !(prev == next && matches!(prev, Item::Shared | Item::Final))
}

/// Tokens after which a `-` or `!` is binary (an operand ends there).
fn ends_operand(t: Token) -> bool {
    use Token::*;
    matches!(t, Ident(_) | Int(_) | True | False | RParen | RBracket)
}

/// The layout itself, without the safety check of [`format`].
fn layout(src: &str) -> String {
    let (tokens, comments) = lex_with_comments(src);
    let mut pieces: Vec<(Piece, Span)> = tokens.into_iter().map(|(t, s)| (Piece::Tok(t), s)).collect();
    for c in comments {
        let kind = if c.text(src).starts_with("//") { Piece::LineComment } else { Piece::BlockComment };
        pieces.push((kind, c));
    }
    pieces.sort_by_key(|(_, s)| s.start);
    drop_empty_statements(&mut pieces);
    let newline = if src.contains("\r\n") { "\r\n" } else { "\n" };
    let mut w = Writer {
        out: String::new(),
        line: String::new(),
        line_indent: 0,
        indent: 0,
        newline,
        cuts: Vec::new(),
        comment: None,
        comment_col: None,
    };

    let mut braces: Vec<Brace> = Vec::new();
    let mut parens = 0usize;
    // The last code token written, for spacing (unary or binary `-`).
    let mut prev_tok: Option<Token> = None;
    let mut prev_unary = false;
    let mut prev_end = 0usize;
    let mut break_pending = false;
    let mut last_item: Option<Item> = None;
    // A comment above an item already took the blank line before it.
    let mut item_separated = false;
    // The source column of the last trailing comment (its output column:
    // `Writer::comment_col`).
    let mut trailing_at: Option<usize> = None;

    for (i, &(piece, span)) in pieces.iter().enumerate() {
        let gap = &src[prev_end.min(span.start)..span.start];
        let newlines = gap.matches('\n').count();
        let next_tok = pieces[i + 1..].iter().find_map(|(p, _)| match p {
            Piece::Tok(t) => Some(*t),
            _ => None,
        });
        let top = braces.is_empty() && parens == 0;
        match piece {
            Piece::LineComment | Piece::BlockComment => {
                let text = span.text(src).trim_end();
                if newlines == 0 && !w.line.is_empty() {
                    // After code on its line: keep the author's gap when that code is
                    // as written (hand-aligned comments stay aligned), else one space.
                    let before = src[..span.start].rsplit('\n').next().unwrap_or("");
                    let same_code = before.trim() == w.line.trim();
                    let gap = before.len() - before.trim_end().len();
                    w.line.truncate(w.line.trim_end().len());
                    let gap = if same_code { gap.max(1) } else { 1 };
                    let code_end = w.line.len();
                    w.line.push_str(&" ".repeat(gap));
                    // A line comment ends the line: the writer keeps it out of
                    // the cutting (a block comment may have code after it).
                    if matches!(piece, Piece::LineComment) {
                        w.comment = Some((code_end, w.line.len()));
                        trailing_at = Some(source_column(src, span.start));
                    }
                    w.line.push_str(text);
                } else {
                    w.end_line();
                    // A comment continuing the trailing comment above, in the
                    // column that one got (after any cut of its line).
                    let continues = trailing_at
                        .filter(|&col| newlines == 1 && col == source_column(src, span.start))
                        .and(w.comment_col);
                    if let Some(out_col) = continues {
                        w.push(&" ".repeat(out_col.saturating_sub(2 * w.indent)));
                        w.push(text);
                        prev_end = span.end;
                        break_pending = true;
                        continue;
                    }
                    if top && last_item.is_some() {
                        let upcoming = next_tok.and_then(item_of);
                        let forced = upcoming.zip(last_item).is_some_and(|(n, p)| needs_blank(p, n));
                        if (forced && !item_separated) || newlines >= 2 {
                            w.blank();
                        }
                        item_separated |= forced;
                    } else if newlines >= 2 {
                        w.blank();
                    }
                    w.push(text);
                }
                if matches!(piece, Piece::LineComment) {
                    break_pending = true;
                } else {
                    // A block comment ends its line when the code after it starts a new one.
                    let after = pieces.get(i + 1).map_or(src.len(), |(_, s)| s.start);
                    break_pending |= src[span.end..after].contains('\n');
                }
            }
            Piece::Tok(t) => {
                trailing_at = None;
                let closes_block = t == Token::RBrace && braces.last() == Some(&Brace::Block);
                let empty_block = t == Token::RBrace && prev_tok == Some(Token::LBrace) && !break_pending;
                let closes_list = t == Token::RBrace && braces.last() == Some(&Brace::List);
                if closes_block {
                    w.indent = w.indent.saturating_sub(1);
                }
                // Each top-level item starts a line (the header has no `;` to end it).
                let starts_item = top && item_of(t).is_some() && prev_tok != Some(Token::Tilde);
                let breaks = break_pending || starts_item || (closes_block && !empty_block) || w.line.is_empty();
                if breaks {
                    w.end_line();
                    let item = if top { item_of(t) } else { None };
                    match (item, last_item) {
                        (Some(n), Some(p)) if needs_blank(p, n) && !item_separated => w.blank(),
                        _ if newlines >= 2 => w.blank(),
                        _ => {}
                    }
                } else {
                    if matches!(t, Token::AndAnd | Token::OrOr) {
                        w.cuts.push((w.line.len(), parens));
                    }
                    let list = closes_list || (prev_tok == Some(Token::LBrace) && braces.last() == Some(&Brace::List));
                    if space_between(prev_tok, prev_unary, list, t) {
                        w.line.push(' ');
                    }
                }
                if top && breaks {
                    if let Some(n) = item_of(t) {
                        last_item = Some(n);
                        item_separated = false;
                    }
                }
                break_pending = false;
                w.push(span.text(src));
                match t {
                    Token::LParen | Token::LBracket => parens += 1,
                    Token::RParen | Token::RBracket => parens = parens.saturating_sub(1),
                    Token::LBrace => {
                        if prev_tok == Some(Token::Assign) {
                            braces.push(Brace::List);
                        } else {
                            braces.push(Brace::Block);
                            w.indent += 1;
                            // `{}` stays one token pair, as rustfmt writes an empty block.
                            break_pending = !matches!(pieces.get(i + 1), Some((Piece::Tok(Token::RBrace), _)));
                        }
                    }
                    // The guard pops a list's brace as well as a block's.
                    Token::RBrace if braces.pop() == Some(Brace::Block) => {
                        break_pending = next_tok != Some(Token::Else);
                    }
                    Token::Semi if parens == 0 => break_pending = true,
                    Token::Comma => w.cuts.push((w.line.len(), parens)),
                    _ => {}
                }
                prev_unary = match t {
                    Token::Minus | Token::Bang => !prev_tok.is_some_and(ends_operand),
                    Token::Tilde => true,
                    _ => false,
                };
                prev_tok = Some(t);
            }
        }
        prev_end = span.end;
    }
    w.end_line();
    w.out
}

/// An empty statement (a `;` where a statement may start) means nothing:
/// it is dropped before the layout, so `{ ; }` is laid out as `{}`.
fn drop_empty_statements(pieces: &mut Vec<(Piece, Span)>) {
    use Token::*;
    let mut braces: Vec<Brace> = Vec::new();
    let mut parens = 0usize;
    let mut prev: Option<Token> = None;
    pieces.retain(|&(piece, _)| {
        let Piece::Tok(t) = piece else { return true };
        let starts_stmt = matches!(prev, Some(Semi | LBrace | RBrace));
        if t == Semi && starts_stmt && parens == 0 && braces.last() == Some(&Brace::Block) {
            return false;
        }
        match t {
            LBrace => braces.push(if prev == Some(Assign) { Brace::List } else { Brace::Block }),
            RBrace => {
                braces.pop();
            }
            LParen | LBracket => parens += 1,
            RParen | RBracket => parens = parens.saturating_sub(1),
            _ => {}
        }
        prev = Some(t);
        true
    });
}

fn source_column(src: &str, at: usize) -> usize {
    src[..at].rsplit('\n').next().unwrap_or("").chars().count()
}

/// Is there a space between `prev` and `t` on one line? `prev_unary`: it
/// was a prefix operator (`-1`, `!f`, `~exists`); `list`: `prev` opens, or
/// `t` closes, an array's values (`{0, 0}`).
fn space_between(prev: Option<Token>, prev_unary: bool, list: bool, t: Token) -> bool {
    use Token::*;
    let Some(p) = prev else { return false };
    if prev_unary || (list && (p == LBrace || t == RBrace)) || (p == LBrace && t == RBrace) {
        return false;
    }
    match t {
        // `x@acquire` is one access.
        _ if p == At => false,
        RParen | RBracket | Comma | Semi | Colon | DotDot | At => false,
        // Calls and atomics hug their arguments; keywords take a space.
        LParen => !matches!(p, Ident(_) | Cas | Xchg | FetchAdd | Lock | Unlock | LParen | LBracket),
        LBracket => !matches!(p, Ident(_)),
        _ => !matches!(p, LParen | LBracket | Colon | DotDot),
    }
}

struct Writer {
    out: String,
    /// The current line, without its indentation.
    line: String,
    /// The indentation the current line started at.
    line_indent: usize,
    indent: usize,
    newline: &'static str,
    /// Where the current line may be cut if it is too long: (byte offset,
    /// bracket depth), before `&&`/`||` and after commas.
    cuts: Vec<(usize, usize)>,
    /// The current line's trailing comment: where its code ends and where
    /// the comment starts (byte offsets).
    comment: Option<(usize, usize)>,
    /// The output column of the trailing comment of the line last ended.
    comment_col: Option<usize>,
}

/// rustfmt's `max_width`.
const MAX_WIDTH: usize = 100;

impl Writer {
    fn push(&mut self, text: &str) {
        if self.line.is_empty() {
            self.line_indent = self.indent;
        }
        self.line.push_str(text);
    }

    fn end_line(&mut self) {
        let cuts = std::mem::take(&mut self.cuts);
        let comment = self.comment.take();
        if self.line.is_empty() {
            return;
        }
        self.comment_col = None;
        let line = std::mem::take(&mut self.line);
        let indent = "  ".repeat(self.line_indent);
        if line.contains('\n') {
            // A block comment's later lines are the author's, verbatim.
            let mut parts = line.split('\n');
            self.out.push_str(&indent);
            self.out.push_str(parts.next().unwrap_or("").trim_end());
            for l in parts {
                self.out.push_str(self.newline);
                self.out.push_str(l.trim_end());
            }
            self.out.push_str(self.newline);
            return;
        }
        // Too long (its code: a trailing comment is never a reason to cut):
        // cut at the shallowest `&&`, `||` or comma, filling each line
        // greedily; continuation lines are indented one more level twice.
        let (code, comment) = match comment {
            Some((code_end, text)) => (&line[..code_end], Some((&line[code_end..text], &line[text..]))),
            None => (line.as_str(), None),
        };
        let mut segments = Vec::new();
        let width = |s: &str| s.trim().chars().count();
        if indent.len() + width(code) > MAX_WIDTH {
            if let Some(depth) = cuts.iter().map(|c| c.1).min() {
                let points: Vec<usize> = cuts.iter().filter(|c| c.1 == depth).map(|c| c.0).collect();
                let (mut start, mut last) = (0, None);
                let mut prefix = indent.len();
                for &p in &points {
                    if prefix + width(&code[start..p]) > MAX_WIDTH {
                        if let Some(l) = last.filter(|&l| l > start) {
                            segments.push(&code[start..l]);
                            (start, prefix) = (l, indent.len() + 4);
                        }
                    }
                    last = Some(p);
                }
                if prefix + width(&code[start..]) > MAX_WIDTH {
                    if let Some(l) = last.filter(|&l| l > start) {
                        segments.push(&code[start..l]);
                        start = l;
                    }
                }
                segments.push(&code[start..]);
            }
        }
        let cut = segments.len() > 1;
        if segments.is_empty() {
            segments.push(code);
        }
        let last = segments.len() - 1;
        for (i, seg) in segments.iter().enumerate() {
            let mut text = String::from(&indent);
            if i > 0 {
                text.push_str("    ");
                text.push_str(seg.trim());
            } else {
                // Leading spaces are a comment's, placed under the one above.
                text.push_str(seg.trim_end());
            }
            if let (true, Some((gap, comment))) = (i == last, comment) {
                // A cut line's comment follows its last piece by one space (its
                // gap was the author's for the line as written).
                text.push_str(if cut { " " } else { gap });
                self.comment_col = Some(text.chars().count());
                text.push_str(comment);
            }
            self.out.push_str(text.trim_end());
            self.out.push_str(self.newline);
        }
    }

    fn blank(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with(&format!("{0}{0}", self.newline)) {
            self.out.push_str(self.newline);
        }
    }
}
