//! The JSON format of histories (docs/history.md):
//! `{"init": {"x": 5}, "threads": [{"name": "P0", "ops": [{"op": "W", "loc": "x", "value": 1}]}]}`
//! (a thread may also be a bare array of operations, named `P<i>`).
//!
//! A small reader of our own rather than serde: every error, including
//! "no write of this value", must point at the line and column of the value
//! in the file, and serde's values carry no positions.

use super::model::{ErrorKind, History, HistoryError, OpKind, ThreadSpec};
use super::parse::Locations;
use litmus_ir::Span;

#[derive(Debug)]
enum Value {
    Null,
    Bool,
    Int(i64),
    /// A number that is not a 64-bit integer (kept as written).
    Num(String),
    Str(String),
    Arr(Vec<Node>),
    Obj(Vec<(String, Node)>),
}

#[derive(Debug)]
struct Node {
    value: Value,
    span: Span,
}

type PResult<T> = Result<T, (ErrorKind, Span)>;

fn err<T>(msg: impl Into<String>, span: Span) -> PResult<T> {
    Err((ErrorKind::Syntax(msg.into()), span))
}

/// Parse a history in the JSON format.
pub fn parse_json(src: &str) -> Result<History, HistoryError> {
    let wrap = |(kind, span)| HistoryError::at(kind, span, src);
    let mut r = Reader { src: src.as_bytes(), pos: 0 };
    let root = r.value(0).map_err(wrap)?;
    r.ws();
    if r.pos < r.src.len() {
        return Err(wrap((ErrorKind::Syntax("unexpected text after the JSON value".into()), r.here())));
    }
    let (locs, threads) = schema(&root).map_err(wrap)?;
    History::new(locs.names, locs.init, threads).map_err(wrap)
}

/// Nesting deeper than any history needs is an error, not a stack overflow.
const MAX_DEPTH: usize = 64;

struct Reader<'s> {
    src: &'s [u8],
    pos: usize,
}

impl Reader<'_> {
    fn ws(&mut self) {
        while matches!(self.src.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The span of the character at the cursor (whole, if it is not ASCII).
    fn here(&self) -> Span {
        let len = match self.src.get(self.pos) {
            None => 0,
            Some(&b) if b < 0x80 => 1,
            Some(_) => {
                let s = std::str::from_utf8(&self.src[self.pos..]).ok();
                s.and_then(|s| s.chars().next()).map_or(1, |c| c.len_utf8())
            }
        };
        Span::new(self.pos, self.pos + len)
    }

    fn value(&mut self, depth: usize) -> PResult<Node> {
        self.ws();
        let start = self.pos;
        if depth > MAX_DEPTH {
            return err(format!("nested deeper than {MAX_DEPTH} levels"), self.here());
        }
        let value = match self.src.get(self.pos) {
            None => return err("expected a JSON value, found the end of the input", self.here()),
            Some(b'{') => {
                self.pos += 1;
                let mut fields = Vec::new();
                self.ws();
                if self.src.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        if self.src.get(self.pos) != Some(&b'"') {
                            return err("expected a field name in double quotes", self.here());
                        }
                        let name = self.string()?;
                        self.ws();
                        if self.src.get(self.pos) != Some(&b':') {
                            return err("expected `:` after the field name", self.here());
                        }
                        self.pos += 1;
                        let v = self.value(depth + 1)?;
                        fields.push((name, v));
                        if self.close(b'}')? {
                            break;
                        }
                    }
                }
                Value::Obj(fields)
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.src.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                } else {
                    loop {
                        items.push(self.value(depth + 1)?);
                        if self.close(b']')? {
                            break;
                        }
                    }
                }
                Value::Arr(items)
            }
            Some(b'"') => Value::Str(self.string()?),
            Some(b't') => self.word("true", Value::Bool)?,
            Some(b'f') => self.word("false", Value::Bool)?,
            Some(b'n') => self.word("null", Value::Null)?,
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(_) => return err("expected a JSON value", self.here()),
        };
        Ok(Node { value, span: Span::new(start, self.pos) })
    }

    /// After an item: `,` (false: more follow) or the closing bracket (true).
    fn close(&mut self, closing: u8) -> PResult<bool> {
        self.ws();
        match self.src.get(self.pos) {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(&c) if c == closing => {
                self.pos += 1;
                Ok(true)
            }
            _ => err(format!("expected `,` or `{}`", closing as char), self.here()),
        }
    }

    fn word(&mut self, w: &str, v: Value) -> PResult<Value> {
        if self.src[self.pos..].starts_with(w.as_bytes()) {
            self.pos += w.len();
            Ok(v)
        } else {
            err("expected a JSON value", self.here())
        }
    }

    fn number(&mut self) -> PResult<Value> {
        let start = self.pos;
        while matches!(self.src.get(self.pos), Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')) {
            self.pos += 1;
        }
        let text = std::str::from_utf8(&self.src[start..self.pos]).unwrap_or("");
        if let Ok(v) = text.parse::<i64>() {
            return Ok(Value::Int(v));
        }
        if text.parse::<f64>().is_ok() {
            return Ok(Value::Num(text.to_string()));
        }
        err(format!("`{text}` is not a number"), Span::new(start, self.pos))
    }

    fn string(&mut self) -> PResult<String> {
        let open = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.src.get(self.pos) {
                None => return err("unterminated string", Span::new(open, open + 1)),
                Some(b'"') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => {
                    let esc = self.pos;
                    self.pos += 1;
                    let c = match self.src.get(self.pos) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let hex =
                                self.src.get(self.pos + 1..self.pos + 5).and_then(|h| std::str::from_utf8(h).ok());
                            let code = hex.and_then(|h| u32::from_str_radix(h, 16).ok());
                            self.pos += 4;
                            // Lone surrogates become U+FFFD: location names need no more.
                            match code {
                                Some(c) => char::from_u32(c).unwrap_or('\u{fffd}'),
                                None => return err("bad \\u escape", Span::new(esc, esc + 2)),
                            }
                        }
                        _ => return err("bad escape in a string", Span::new(esc, esc + 2)),
                    };
                    self.pos += 1;
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Some(&b) if b < 0x20 => return err("control character in a string", self.here()),
                Some(&b) => {
                    out.push(b);
                    self.pos += 1;
                }
            }
        }
        // The input is a &str and we split only at ASCII bytes, so this holds.
        Ok(String::from_utf8(out).unwrap_or_default())
    }
}

fn field<'n>(fields: &'n [(String, Node)], name: &str) -> Option<&'n Node> {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

fn int(n: &Node, what: &str) -> PResult<i64> {
    match &n.value {
        Value::Int(v) => Ok(*v),
        Value::Num(t) => err(format!("{what} must be a 64-bit integer, not {t}"), n.span),
        _ => err(format!("{what} must be an integer"), n.span),
    }
}

fn string<'n>(n: &'n Node, what: &str) -> PResult<&'n str> {
    match &n.value {
        Value::Str(s) if !s.is_empty() => Ok(s),
        _ => err(format!("{what} must be a non-empty string"), n.span),
    }
}

/// A name as the text format writes it (a letter or `_`, then letters,
/// digits, `_`; a location may end in `[index]`), so either format can be
/// printed as the other.
fn name<'n>(n: &'n Node, what: &str, cell: bool) -> PResult<&'n str> {
    let s = string(n, what)?;
    let (base, index) = match s.split_once('[') {
        Some((b, rest)) if cell => (b, Some(rest)),
        _ => (s, None),
    };
    let ident = base.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && base.chars().all(|c| c.is_alphanumeric() || c == '_');
    let index_ok = index
        .is_none_or(|i| i.strip_suffix(']').is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit())));
    if ident && index_ok {
        Ok(s)
    } else {
        err(format!("{what} must be a name like the text format's (`x`, `P0`, `a[2]`), not \"{s}\""), n.span)
    }
}

/// The history the document describes.
fn schema(root: &Node) -> PResult<(Locations, Vec<ThreadSpec>)> {
    let Value::Obj(fields) = &root.value else {
        return err("a history is an object with a \"threads\" array", root.span);
    };
    for (k, v) in fields {
        if k != "threads" && k != "init" {
            return err(format!("unknown field \"{k}\": a history has \"threads\" and optionally \"init\""), v.span);
        }
    }
    let mut locs = Locations::default();
    if let Some(init) = field(fields, "init") {
        let Value::Obj(inits) = &init.value else {
            return err("\"init\" must map locations to their initial values", init.span);
        };
        for (i, (loc, v)) in inits.iter().enumerate() {
            if let Some((_, first)) = inits[..i].iter().find(|(k, _)| k == loc) {
                return Err((ErrorKind::DuplicateInit { loc: loc.clone(), first: first.span }, v.span));
            }
            let key = Node { value: Value::Str(loc.clone()), span: v.span };
            let id = locs.id(name(&key, "a location", true)?);
            locs.init[id] = int(v, "an initial value")?;
        }
    }
    let Some(threads) = field(fields, "threads") else {
        return err("missing field \"threads\"", root.span);
    };
    let Value::Arr(threads) = &threads.value else {
        return err("\"threads\" must be an array of threads", threads.span);
    };
    let mut specs = Vec::new();
    for (i, t) in threads.iter().enumerate() {
        let (name, span, ops) = match &t.value {
            Value::Arr(ops) => (format!("P{i}"), t.span, ops),
            Value::Obj(tf) => {
                for (k, v) in tf {
                    if k != "name" && k != "ops" {
                        return err(format!("unknown field \"{k}\": a thread has \"name\" and \"ops\""), v.span);
                    }
                }
                let name = match field(tf, "name") {
                    Some(n) if matches!(&n.value, Value::Str(s) if s == "init") => {
                        return err("`init` names the initial values, not a thread", n.span)
                    }
                    Some(n) => name(n, "a thread name", false)?.to_string(),
                    None => format!("P{i}"),
                };
                let Some(ops) = field(tf, "ops") else {
                    return err("missing field \"ops\"", t.span);
                };
                let Value::Arr(ops) = &ops.value else {
                    return err("\"ops\" must be an array of operations", ops.span);
                };
                (name, field(tf, "name").map_or(t.span, |n| n.span), ops)
            }
            _ => return err("a thread is an array of operations or {\"name\", \"ops\"}", t.span),
        };
        let ops = ops.iter().map(|o| op(o, &mut locs)).collect::<PResult<Vec<_>>>()?;
        specs.push(ThreadSpec { name, span, ops });
    }
    Ok((locs, specs))
}

fn op(o: &Node, locs: &mut Locations) -> PResult<(OpKind, Span)> {
    let Value::Obj(f) = &o.value else {
        return err("an operation is an object like {\"op\": \"W\", \"loc\": \"x\", \"value\": 1}", o.span);
    };
    let Some(kind) = field(f, "op") else {
        return err("missing field \"op\" (\"R\", \"W\", \"RMW\" or \"F\")", o.span);
    };
    let kind_name = string(kind, "\"op\"")?;
    let allowed: &[&str] = match kind_name {
        "R" | "W" => &["op", "loc", "value"],
        "RMW" => &["op", "loc", "read", "write"],
        "F" => &["op"],
        other => {
            return err(format!("unknown operation \"{other}\": expected \"R\", \"W\", \"RMW\" or \"F\""), kind.span)
        }
    };
    for (k, v) in f {
        if !allowed.contains(&k.as_str()) {
            return err(format!("unknown field \"{k}\" for a {kind_name} (it has {})", allowed.join(", ")), v.span);
        }
    }
    let need =
        |name: &str| field(f, name).ok_or_else(|| (ErrorKind::Syntax(format!("missing field \"{name}\"")), o.span));
    if kind_name == "F" {
        return Ok((OpKind::Fence, o.span));
    }
    let loc = locs.id(name(need("loc")?, "\"loc\"", true)?);
    let kind = match kind_name {
        "R" => OpKind::Read { loc, value: int(need("value")?, "\"value\"")? },
        "W" => OpKind::Write { loc, value: int(need("value")?, "\"value\"")? },
        _ => OpKind::Rmw { loc, read: int(need("read")?, "\"read\"")?, write: int(need("write")?, "\"write\"")? },
    };
    Ok((kind, o.span))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse_text, to_text};

    #[test]
    fn json_and_text_describe_the_same_history() {
        let src = r#"{"threads": [
            {"name": "P0", "ops": [{"op": "W", "loc": "x", "value": 1}, {"op": "R", "loc": "y", "value": 0}]},
            [{"op": "W", "loc": "y", "value": 1}, {"op": "F"}, {"op": "RMW", "loc": "x", "read": 1, "write": 2}]
        ], "init": {}}"#;
        let h = parse_json(src).unwrap();
        let t = parse_text("P0: W(x,1) R(y,0)\nP1: W(y,1) F RMW(x,1,2)\n").unwrap();
        assert_eq!(to_text(&h), to_text(&t));
        let h =
            parse_json(r#"{"init": {"x": 5, "a\u005b1]": 2}, "threads": [[{"op":"R","loc":"x","value":5}]]}"#).unwrap();
        assert_eq!(to_text(&h), "init: x=5 a[1]=2\nP0: R(x,5)\n");
    }

    #[test]
    fn errors_point_into_the_file() {
        let e = parse_json("{\"threads\": [\n  [{\"op\": \"R\", \"loc\": \"x\", \"value\": 3}]\n]}").unwrap_err();
        assert_eq!((e.line, e.column, e.code()), (2, 4, "E0602"), "{e}");
        let e = parse_json("{\"threads\": [[{\"op\": \"W\", \"loc\": \"x\", \"value\": 1.5}]]}").unwrap_err();
        assert_eq!((e.line, e.column, e.code()), (1, 48, "E0601"), "{e}");
        let e = parse_json("{\"threads\": [[{\"op\": \"X\"}]]}").unwrap_err();
        assert_eq!((e.line, e.column), (1, 22), "{e}");
        let e = parse_json("{\"threads\": [[]],}").unwrap_err();
        assert_eq!((e.line, e.column), (1, 18), "{e}");
        let e = parse_json("{\"threads\": [[]]} x").unwrap_err();
        assert_eq!((e.line, e.column), (1, 19), "{e}");
        let e = parse_json("{\"threads\": [{\"name\": \"P 0\", \"ops\": []}]}").unwrap_err();
        assert!(e.to_string().contains("a thread name must be a name"), "{e}");
        let e = parse_json("{\"threads\": [[{\"op\": \"R\", \"loc\": \"a[x]\", \"value\": 0}]]}").unwrap_err();
        assert_eq!(e.column, 34, "{e}");
        assert!(parse_json("{\"threads\": [[{\"op\": \"R\", \"loc\": \"a[12]\", \"value\": 0}]]}").is_ok());
        let e = parse_json("{\"thread\": []}").unwrap_err();
        assert!(e.to_string().contains("unknown field \"thread\""), "{e}");
        let deep = format!("{{\"threads\": {}{}}}", "[".repeat(100), "]".repeat(100));
        assert!(parse_json(&deep).unwrap_err().to_string().contains("nested deeper"));
        let e = parse_json("{\"threads\": [[{\"op\": \"W\", \"loc\": \"x\", \"value\": 1}, {\"op\": \"W\", \"loc\": \"x\", \"value\": 1}]]}")
            .unwrap_err();
        assert_eq!((e.column, e.code()), (52, "E0603"), "{e}");
    }
}
