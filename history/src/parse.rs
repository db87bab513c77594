//! The text format of histories (docs/history.md): a line per thread,
//! `P0: W(x,1) R(y,0) F RMW(x,1,2)`, `#` comments, blank lines, and
//! optional `init: x=5 y=-1` lines; and its printer.

use super::model::{ErrorKind, History, HistoryError, OpKind, ThreadSpec};
use litmus_ir::Span;

/// Parse a history in the text format.
pub fn parse_text(src: &str) -> Result<History, HistoryError> {
    let mut p = Parser { src, pos: 0, locs: Locations::default(), threads: Vec::new(), init_spans: Vec::new() };
    p.document().map_err(|(kind, span)| HistoryError::at(kind, span, src))?;
    let Parser { locs, threads, .. } = p;
    History::new(locs.names, locs.init, threads).map_err(|(kind, span)| HistoryError::at(kind, span, src))
}

/// Location names in order of first appearance, with initial values.
#[derive(Default)]
pub(super) struct Locations {
    pub names: Vec<String>,
    pub init: Vec<i64>,
    index: std::collections::HashMap<String, usize>,
}

impl Locations {
    pub fn id(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.names.push(name.to_string());
        self.init.push(0);
        self.index.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }
}

type PResult<T> = Result<T, (ErrorKind, Span)>;

struct Parser<'s> {
    src: &'s str,
    pos: usize,
    locs: Locations,
    threads: Vec<ThreadSpec>,
    /// Where each location's initial value was given (to report repeats).
    init_spans: Vec<(usize, Span)>,
}

fn syntax(msg: impl Into<String>, span: Span) -> (ErrorKind, Span) {
    (ErrorKind::Syntax(msg.into()), span)
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    /// Skip blanks (not line breaks) and a comment up to the end of the line.
    fn blanks(&mut self) {
        while let Some(c) = self.peek() {
            if c == '#' {
                while let Some(c) = self.peek() {
                    if c == '\n' || c == '\r' {
                        break;
                    }
                    self.pos += c.len_utf8();
                }
            } else if c.is_whitespace() && c != '\n' && c != '\r' {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }

    fn here(&self) -> Span {
        let len = self.peek().map_or(0, |c| c.len_utf8());
        Span::new(self.pos, self.pos + len)
    }

    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the input".to_string(),
            Some('\n') | Some('\r') => "the end of the line".to_string(),
            Some(c) => format!("`{c}`"),
        }
    }

    fn expect(&mut self, c: char, what: &str) -> PResult<()> {
        self.blanks();
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(syntax(format!("expected {what}, found {}", self.found()), self.here()))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<(String, Span)> {
        self.blanks();
        let start = self.pos;
        while let Some(c) = self.peek() {
            let ok = if self.pos == start { c.is_alphabetic() || c == '_' } else { c.is_alphanumeric() || c == '_' };
            if !ok {
                break;
            }
            self.pos += c.len_utf8();
        }
        if self.pos == start {
            return Err(syntax(format!("expected {what}, found {}", self.found()), self.here()));
        }
        Ok((self.src[start..self.pos].to_string(), Span::new(start, self.pos)))
    }

    /// A location: a name, optionally an array cell `a[2]`.
    fn location(&mut self) -> PResult<(String, Span)> {
        let (mut name, span) = self.ident("a location name")?;
        if self.peek() == Some('[') {
            let (n, nspan) = {
                self.pos += 1;
                self.integer("an array index")?
            };
            if self.peek() != Some(']') {
                return Err(syntax(format!("expected `]`, found {}", self.found()), self.here()));
            }
            self.pos += 1;
            name = format!("{name}[{n}]");
            return Ok((name, span.join(nspan).join(Span::new(self.pos - 1, self.pos))));
        }
        Ok((name, span))
    }

    fn integer(&mut self, what: &str) -> PResult<(i64, Span)> {
        self.blanks();
        let start = self.pos;
        if matches!(self.peek(), Some('-') | Some('+')) {
            self.pos += 1;
        }
        while matches!(self.peek(), Some(c) if c.is_ascii_digit()) {
            self.pos += 1;
        }
        let span = Span::new(start, self.pos);
        let text = &self.src[start..self.pos];
        if text.is_empty() || text == "-" || text == "+" {
            self.pos = start;
            return Err(syntax(format!("expected {what}, found {}", self.found()), self.here()));
        }
        text.parse::<i64>()
            .map(|v| (v, span))
            .map_err(|_| syntax(format!("{text} does not fit in a 64-bit integer"), span))
    }

    fn at_line_end(&mut self) -> bool {
        self.blanks();
        matches!(self.peek(), None | Some('\n') | Some('\r'))
    }

    fn document(&mut self) -> PResult<()> {
        loop {
            self.blanks();
            match self.peek() {
                None => return Ok(()),
                Some('\n') | Some('\r') => self.pos += 1,
                Some(_) => self.line()?,
            }
        }
    }

    /// `NAME: op op …` or `init: x=1 …`.
    fn line(&mut self) -> PResult<()> {
        let (name, name_span) = self.ident("a thread name (`P0: W(x,1) R(y,0)`)")?;
        self.expect(':', "`:` after the thread name")?;
        if name == "init" {
            return self.init_line();
        }
        let mut ops = Vec::new();
        while !self.at_line_end() {
            ops.push(self.op()?);
            self.blanks();
            if self.peek() == Some(',') {
                self.pos += 1;
            }
        }
        self.threads.push(ThreadSpec { name, span: name_span, ops });
        Ok(())
    }

    fn init_line(&mut self) -> PResult<()> {
        while !self.at_line_end() {
            let (name, span) = self.location()?;
            self.expect('=', "`=` after the location (`init: x=1`)")?;
            let (value, vspan) = self.integer("an initial value")?;
            let id = self.locs.id(&name);
            if let Some(&(_, first)) = self.init_spans.iter().find(|(l, _)| *l == id) {
                return Err((ErrorKind::DuplicateInit { loc: name, first }, span));
            }
            self.init_spans.push((id, span.join(vspan)));
            self.locs.init[id] = value;
            self.blanks();
            if self.peek() == Some(',') {
                self.pos += 1;
            }
        }
        Ok(())
    }

    fn op(&mut self) -> PResult<(OpKind, Span)> {
        self.blanks();
        let start = self.pos;
        let (word, wspan) = self.ident("an operation: W(x,1), R(x,1), RMW(x,1,2) or F")?;
        let kind = match word.as_str() {
            "F" => return Ok((OpKind::Fence, wspan)),
            "W" | "R" => {
                self.expect('(', &format!("`(` after {word}"))?;
                let (name, _) = self.location()?;
                self.expect(',', "`,` after the location")?;
                let (value, _) = self.integer("a value")?;
                self.expect(')', "`)`")?;
                let loc = self.locs.id(&name);
                if word == "W" {
                    OpKind::Write { loc, value }
                } else {
                    OpKind::Read { loc, value }
                }
            }
            "RMW" => {
                self.expect('(', "`(` after RMW")?;
                let (name, _) = self.location()?;
                self.expect(',', "`,` after the location")?;
                let (read, _) = self.integer("the value read")?;
                self.expect(',', "`,` after the value read")?;
                let (write, _) = self.integer("the value written")?;
                self.expect(')', "`)`")?;
                OpKind::Rmw { loc: self.locs.id(&name), read, write }
            }
            _ => {
                return Err(syntax(
                    format!("unknown operation `{word}`: expected W(x,1), R(x,1), RMW(x,1,2) or F"),
                    wspan,
                ))
            }
        };
        Ok((kind, Span::new(start, self.pos)))
    }
}

/// The history in the text format (what [`parse_text`] reads back).
pub fn to_text(h: &History) -> String {
    let mut out = String::new();
    let inits: Vec<String> =
        (0..h.locs.len()).filter(|&l| h.init[l] != 0).map(|l| format!("{}={}", h.locs[l], h.init[l])).collect();
    if !inits.is_empty() {
        out.push_str(&format!("init: {}\n", inits.join(" ")));
    }
    for t in &h.threads {
        let ops: Vec<String> = t.ops.clone().map(|o| h.op_text(o)).collect();
        if ops.is_empty() {
            out.push_str(&format!("{}:\n", t.name));
        } else {
            out.push_str(&format!("{}: {}\n", t.name, ops.join(" ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ops_comments_and_blank_lines() {
        let src = "# store buffering\n\nP0: W(x,1) R(y,0)  # r0\nP1: W(y,1), F, RMW(x,1,2)\n";
        let h = parse_text(src).unwrap();
        assert_eq!(h.locs, vec!["x", "y"]);
        assert_eq!(h.threads.len(), 2);
        assert_eq!(to_text(&h), "P0: W(x,1) R(y,0)\nP1: W(y,1) F RMW(x,1,2)\n");
        // R(y,0) reads the initial write of y; the RMW reads P0's write.
        let r = h.threads[0].ops.start + 1;
        assert_eq!(h.source[r], 1);
        let rmw = h.threads[1].ops.end - 1;
        assert_eq!(h.source[rmw], h.threads[0].ops.start);
        assert_eq!(to_text(&parse_text(&to_text(&h)).unwrap()), to_text(&h));
    }

    #[test]
    fn init_lines_and_array_cells() {
        let h = parse_text("init: x=5 a[1]=-2\nP0: R(x,5) W(a[1],3)\n").unwrap();
        assert_eq!(h.init, vec![5, -2]);
        assert_eq!(h.locs[1], "a[1]");
        assert_eq!(to_text(&parse_text(&to_text(&h)).unwrap()), to_text(&h));
    }

    fn err(src: &str) -> HistoryError {
        parse_text(src).unwrap_err()
    }

    #[test]
    fn errors_have_line_and_column() {
        let e = err("P0: W(x,1)\nP1: R(x,2)\n");
        assert_eq!((e.line, e.column, e.code()), (2, 5, "E0602"));
        let e = err("P0: W(x,1)\n  P1: W(x,1)\n");
        assert_eq!((e.line, e.column, e.code()), (2, 7, "E0603"));
        let e = err("P0: W(x,0)\n");
        assert_eq!((e.line, e.column, e.code()), (1, 5, "E0604"));
        let e = err("P0: W(x 1)\n");
        assert_eq!((e.line, e.column, e.code()), (1, 9, "E0601"));
        assert!(e.to_string().contains("expected `,` after the location"), "{e}");
        let e = err("P0: W(x,1) Q(x)\n");
        assert_eq!((e.line, e.column), (1, 12));
        let e = err("P0 W(x,1)\n");
        assert_eq!((e.line, e.column), (1, 4));
        let e = err("P0: R(x,0)\nP0: R(x,0)\n");
        assert_eq!((e.line, e.column, e.code()), (2, 1, "E0605"));
        let e = err("P0: W(x,99999999999999999999)\n");
        assert_eq!((e.line, e.column), (1, 9));
        let e = err("init: x=1 x=2\n");
        assert_eq!((e.line, e.column, e.code()), (1, 11, "E0606"));
        // Columns count chars, not bytes.
        let e = err("P0: R(é,0) R(x,9)");
        assert_eq!((e.line, e.column, e.code()), (1, 12, "E0602"), "{e}");
    }
}
