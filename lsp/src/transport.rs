//! The byte transport between the client and the `LspService`: framing,
//! a check of every message before the service sees it, and one writer.
//!
//! tower-lsp-server's own `Server` ends the connection after the first body
//! its codec cannot decode (tokio-util's `FramedRead` ends the stream after
//! a decoder error), and it buffers a body of any announced length. Here:
//!
//! - a body that is not UTF-8 or not JSON is answered `-32700 Parse error`,
//!   JSON that is not a JSON-RPC 2.0 message `-32600 Invalid Request` (with
//!   the message's `id` when it has a usable one, else `null`), and the next
//!   message is read as usual;
//! - a body longer than [`MAX_BODY_BYTES`] is answered `-32600` and skipped
//!   without being stored (beyond [`MAX_SKIP_BYTES`] the length is taken for
//!   a broken header and the connection ends);
//! - only a header that cannot be parsed (no `Content-Length`, a length that
//!   is not a number, a header block over [`MAX_HEADER_BYTES`]) ends the
//!   connection: nothing says where the next message would start. `serve`
//!   then returns the reason as an error.
//!
//! Everything the server writes — responses, its own requests and
//! notifications, the error replies above — goes through one channel to one
//! writer, so frames never interleave.

use futures::channel::mpsc as fmpsc;
use futures::{stream, SinkExt, StreamExt};
use serde_json::Value;
use std::io;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tower::Service;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Id, Request, Response};
use tower_lsp_server::{ClientSocket, LanguageServer, LspService};

/// The longest header block accepted (all header lines together).
pub const MAX_HEADER_BYTES: usize = 8 * 1024;
/// The longest message body read; a longer one is answered and skipped.
pub const MAX_BODY_BYTES: u64 = 64 << 20;
/// A `Content-Length` beyond this is not a message but a broken header:
/// skipping it would swallow the rest of the session, so the connection ends.
pub const MAX_SKIP_BYTES: u64 = 1 << 30;
/// Requests handled at once. Requests only read snapshots and checks run
/// off the handlers, so many may be in flight; a small limit would stall
/// edits behind slow requests.
const CONCURRENCY: usize = 64;

/// One framed message, or the end of the input.
enum Frame {
    Body(Vec<u8>),
    /// A body longer than `MAX_BODY_BYTES` (not yet read).
    TooLarge(u64),
    Eof,
}

/// What a well-framed body turned out to be.
#[derive(Debug)]
pub enum Incoming {
    Request(Request),
    Response(Response),
}

fn broken(why: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, why.into())
}

/// At most `max` characters of `s`, for messages about it.
fn excerpt(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}

/// One header line (with its line break), or `None` at the end of the
/// input before any byte of it; never more than `budget` bytes.
async fn read_line<R: AsyncBufRead + Unpin>(r: &mut R, budget: usize) -> io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    loop {
        let buf = r.fill_buf().await?;
        if buf.is_empty() {
            return if line.is_empty() { Ok(None) } else { Err(broken("the input ended inside a message header")) };
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if line.len() + take > budget {
            return Err(broken(format!("a message header is longer than {MAX_HEADER_BYTES} bytes")));
        }
        line.extend_from_slice(&buf[..take]);
        r.consume(take);
        if done {
            return Ok(Some(line));
        }
    }
}

/// Read the header block and return the body length (or the end of input).
async fn read_header<R: AsyncBufRead + Unpin>(r: &mut R) -> io::Result<Option<u64>> {
    let mut used = 0;
    let mut length: Option<u64> = None;
    let mut any = false;
    loop {
        let Some(raw) = read_line(r, MAX_HEADER_BYTES - used).await? else {
            return if any { Err(broken("the input ended inside a message header")) } else { Ok(None) };
        };
        used += raw.len();
        let line = raw.strip_suffix(b"\n").unwrap_or(&raw);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            if !any {
                // A stray line break between messages: tolerated.
                continue;
            }
            break;
        }
        any = true;
        let text = std::str::from_utf8(line).map_err(|_| broken("a message header line is not UTF-8"))?;
        let Some((name, value)) = text.split_once(':') else {
            return Err(broken(format!("`{}` is not a `Name: value` header line", excerpt(text, 60))));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let v = value.trim();
            let n = Some(v)
                .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|v| v.parse::<u64>().ok())
                .ok_or_else(|| broken(format!("Content-Length `{}` is not a number of bytes", excerpt(v, 40))))?;
            if length.is_some_and(|m| m != n) {
                return Err(broken(format!("two different Content-Length headers ({} and {n})", length.unwrap())));
            }
            length = Some(n);
        }
        // Content-Type and any other header are ignored: the body must be
        // UTF-8 JSON whatever they say, and that is checked.
    }
    length.map(Some).ok_or_else(|| broken("a message header has no Content-Length"))
}

async fn read_frame<R: AsyncBufRead + Unpin>(r: &mut R) -> io::Result<Frame> {
    let Some(len) = read_header(r).await? else { return Ok(Frame::Eof) };
    if len > MAX_BODY_BYTES {
        return Ok(Frame::TooLarge(len));
    }
    // Grows with what arrives, not with what the header announces.
    let mut body = Vec::with_capacity(len.min(64 * 1024) as usize);
    (&mut *r).take(len).read_to_end(&mut body).await?;
    if (body.len() as u64) < len {
        return Err(broken(format!("the input ended {} bytes into a message of {len} bytes", body.len())));
    }
    Ok(Frame::Body(body))
}

fn valid_id(v: &Value) -> Option<Id> {
    match v {
        Value::Number(n) => n.as_i64().map(Id::Number),
        Value::String(s) => Some(Id::String(s.clone())),
        Value::Null => Some(Id::Null),
        _ => None,
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A body, checked: a request or notification, a response, or the error
/// reply it gets (`-32700` or `-32600`, with the id when one is usable).
pub fn classify(body: &[u8]) -> Result<Incoming, Response> {
    let parse_error = |why: String| {
        let message = format!("Parse error: {why}");
        Response::from_error(Id::Null, Error { code: ErrorCode::ParseError, message: message.into(), data: None })
    };
    let text = std::str::from_utf8(body)
        .map_err(|e| parse_error(format!("the message is not UTF-8 (invalid byte at offset {})", e.valid_up_to())))?;
    let value: Value = serde_json::from_str(text).map_err(|e| parse_error(format!("the message is not JSON: {e}")))?;
    check_message(value).map_err(|(id, why)| {
        let message = format!("Invalid request: {why}");
        Response::from_error(id, Error { code: ErrorCode::InvalidRequest, message: message.into(), data: None })
    })
}

/// JSON → a JSON-RPC 2.0 message, or the id to answer with and why not.
fn check_message(value: Value) -> Result<Incoming, (Id, String)> {
    let Value::Object(o) = &value else {
        let why = match value {
            Value::Array(_) => "a JSON array (a batch); LSP messages are single JSON objects".to_string(),
            ref v => format!("{} is not a message; expected a JSON object", kind(v)),
        };
        return Err((Id::Null, why));
    };
    // A response answers one of our requests: echoing its id would read as
    // an answer to the client's own request of that id, so only requests
    // get their id back.
    let is_response = !o.contains_key("method") && (o.contains_key("result") || o.contains_key("error"));
    let id = if is_response { Id::Null } else { o.get("id").and_then(valid_id).unwrap_or(Id::Null) };
    let fail = |why: String| Err((id.clone(), why));
    match o.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        None => return fail("`jsonrpc` is missing (expected \"2.0\")".into()),
        Some(v) => return fail(format!("`jsonrpc` is {}, expected \"2.0\"", excerpt(&v.to_string(), 40))),
    }
    if let Some(v) = o.get("id") {
        if valid_id(v).is_none() {
            return fail(format!("`id` is {}; expected an integer, a string or null", excerpt(&v.to_string(), 40)));
        }
    }
    if is_response {
        if o.contains_key("result") && o.contains_key("error") {
            return fail("a response has both `result` and `error`".into());
        }
        if !o.contains_key("id") {
            return fail("a response has no `id`".into());
        }
        return serde_json::from_value(value)
            .map(Incoming::Response)
            .map_err(|e| (Id::Null, format!("not a valid response: {e}")));
    }
    match o.get("method") {
        Some(Value::String(_)) => {}
        None => return fail("`method` is missing".into()),
        Some(v) => return fail(format!("`method` is {}, not a string", excerpt(&v.to_string(), 40))),
    }
    match o.get("params") {
        // `null` too: some clients send it for methods without parameters.
        None | Some(Value::Object(_) | Value::Array(_) | Value::Null) => {}
        Some(v) => return fail(format!("`params` is {}; expected an object or an array", kind(v))),
    }
    serde_json::from_value(value).map(Incoming::Request).map_err(|e| (id.clone(), e.to_string()))
}

fn encode<T: serde::Serialize>(msg: &T) -> Option<Vec<u8>> {
    serde_json::to_vec(msg).ok()
}

/// Write each body as a frame, flushing when nothing else is queued.
async fn write_frames<O: AsyncWrite>(output: O, mut rx: mpsc::Receiver<Vec<u8>>) {
    tokio::pin!(output);
    while let Some(body) = rx.recv().await {
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend_from_slice(&body);
        let written = async {
            output.write_all(&frame).await?;
            if rx.is_empty() {
                output.flush().await?;
            }
            io::Result::Ok(())
        };
        if let Err(e) = written.await {
            eprintln!("litmus lsp: cannot write to the client: {e}");
            return;
        }
    }
    let _ = output.flush().await;
}

/// Serve `service` on these byte streams until `exit`, the end of the
/// input, or a header that cannot be parsed (the error).
pub async fn serve<S, I, O>(mut service: LspService<S>, socket: ClientSocket, input: I, output: O) -> io::Result<()>
where
    S: LanguageServer,
    I: AsyncRead + Unpin,
    O: AsyncWrite,
{
    let (client_requests, mut client_responses) = socket.split();
    let (client_requests, stop_client_requests) = stream::abortable(client_requests);
    let (out, out_rx) = mpsc::channel::<Vec<u8>>(64);
    let (mut tasks, tasks_rx) = fmpsc::channel(100);

    let write = write_frames(output, out_rx);
    let respond = {
        let out = out.clone();
        async move {
            let mut done = tasks_rx.buffer_unordered(CONCURRENCY);
            while let Some(r) = done.next().await {
                if let Ok(Some(response)) = r {
                    let Some(body) = encode::<Response>(&response) else { continue };
                    if out.send(body).await.is_err() {
                        break;
                    }
                }
            }
        }
    };
    let forward = {
        let out = out.clone();
        async move {
            let mut requests = client_requests;
            while let Some(request) = requests.next().await {
                let Some(body) = encode::<Request>(&request) else { continue };
                if out.send(body).await.is_err() {
                    break;
                }
            }
        }
    };
    let read = async move {
        let mut input = BufReader::new(input);
        let result = loop {
            let frame = tokio::select! {
                frame = read_frame(&mut input) => frame,
                // The writer failed: the client is gone.
                _ = out.closed() => break Ok(()),
            };
            let body = match frame {
                Err(e) => break Err(io::Error::new(e.kind(), format!("{e}; closing the connection"))),
                Ok(Frame::Eof) => break Ok(()),
                Ok(Frame::TooLarge(len)) => {
                    let skip = len <= MAX_SKIP_BYTES;
                    let why = format!(
                        "a message of {len} bytes is longer than the limit of {MAX_BODY_BYTES} bytes; {}",
                        if skip { "skipped" } else { "closing the connection" }
                    );
                    let message = format!("Invalid request: {why}");
                    let error = Error { code: ErrorCode::InvalidRequest, message: message.into(), data: None };
                    if let Some(body) = encode(&Response::from_error(Id::Null, error)) {
                        let _ = out.send(body).await;
                    }
                    if !skip {
                        break Err(broken(why));
                    }
                    eprintln!("litmus lsp: {why}");
                    match tokio::io::copy(&mut (&mut input).take(len), &mut tokio::io::sink()).await {
                        Ok(n) if n == len => continue,
                        Ok(n) => break Err(broken(format!("the input ended {n} bytes into a message of {len} bytes"))),
                        Err(e) => break Err(e),
                    }
                }
                Ok(Frame::Body(body)) => body,
            };
            match classify(&body) {
                Err(reply) => {
                    if let Some(e) = reply.error() {
                        eprintln!("litmus lsp: answered {}: {}", e.code.code(), e.message);
                    }
                    if let Some(body) = encode(&reply) {
                        let _ = out.send(body).await;
                    }
                }
                Ok(Incoming::Response(response)) => {
                    if client_responses.send(response).await.is_err() {
                        break Ok(());
                    }
                }
                Ok(Incoming::Request(request)) => {
                    if std::future::poll_fn(|cx| service.poll_ready(cx)).await.is_err() {
                        // The service has exited.
                        break Ok(());
                    }
                    // The server must stop after `exit`; some clients keep
                    // stdin open, so do not wait for its end.
                    let exit = request.method() == "exit";
                    if tasks.send(service.call(request)).await.is_err() || exit {
                        break Ok(());
                    }
                }
            }
        };
        tasks.disconnect();
        stop_client_requests.abort();
        drop(out);
        result
    };
    let ((), (), (), result) = tokio::join!(write, respond, forward, read);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &[u8]) -> (i64, Id) {
        let r = classify(body).expect_err("an error reply");
        (r.error().unwrap().code.code(), r.id().clone())
    }

    #[test]
    fn bodies_are_classified() {
        assert_eq!(code(b"{\"jsonrpc\":"), (-32700, Id::Null));
        assert_eq!(code(b""), (-32700, Id::Null));
        assert_eq!(code(b"\xff\"x\""), (-32700, Id::Null));
        // JSON has no infinity: a number out of range is not JSON.
        assert_eq!(code(br#"{"jsonrpc":"2.0","method":"m","params":{"timeout":1e999}}"#), (-32700, Id::Null));
        assert_eq!(code(b"[1,2,3]"), (-32600, Id::Null));
        assert_eq!(code(b"\"hello\""), (-32600, Id::Null));
        assert_eq!(code(b"{}"), (-32600, Id::Null));
        assert_eq!(code(br#"{"id":5,"method":"shutdown"}"#), (-32600, Id::Number(5)));
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":"a","method":42}"#), (-32600, Id::String("a".into())));
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#), (-32600, Id::Null));
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":7}"#), (-32600, Id::Number(7)));
        assert_eq!(code(br#"{"jsonrpc":"2.0","method":"x","params":3}"#), (-32600, Id::Null));
        // A malformed response never echoes its id.
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":3,"result":1,"error":{}}"#), (-32600, Id::Null));
        assert_eq!(code(br#"{"jsonrpc":"2.0","id":3,"error":"oops"}"#), (-32600, Id::Null));
        assert!(matches!(classify(br#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#), Ok(Incoming::Request(_))));
        assert!(matches!(classify(br#"{"jsonrpc":"2.0","method":"exit","params":null}"#), Ok(Incoming::Request(_))));
        assert!(matches!(classify(br#"{"jsonrpc":"2.0","id":1,"result":null}"#), Ok(Incoming::Response(_))));
    }

    async fn frames(bytes: &[u8]) -> Vec<Result<Vec<u8>, String>> {
        let mut r = BufReader::new(bytes);
        let mut out = Vec::new();
        loop {
            match read_frame(&mut r).await {
                Ok(Frame::Eof) => return out,
                Ok(Frame::Body(b)) => out.push(Ok(b)),
                Ok(Frame::TooLarge(n)) => return [out, vec![Err(format!("too large {n}"))]].concat(),
                Err(e) => return [out, vec![Err(e.to_string())]].concat(),
            }
        }
    }

    #[tokio::test]
    async fn headers() {
        let two = b"Content-Length: 2\r\n\r\n{}\r\ncontent-length:3\r\nContent-Type: x; charset=latin1\r\n\r\n[1]";
        assert_eq!(frames(two).await, [Ok(b"{}".to_vec()), Ok(b"[1]".to_vec())]);
        let bad = frames(b"Content-Length: abc\r\n\r\n{}").await;
        assert!(bad[0].as_ref().unwrap_err().contains("Content-Length `abc`"), "{bad:?}");
        let bad = frames(b"Content-Length: 99999999999999999999999\r\n\r\n").await;
        assert!(bad[0].is_err(), "{bad:?}");
        let bad = frames(b"Content-Type: a\r\n\r\n{}").await;
        assert!(bad[0].as_ref().unwrap_err().contains("no Content-Length"), "{bad:?}");
        let bad = frames(b"garbage\r\n\r\n").await;
        assert!(bad[0].as_ref().unwrap_err().contains("not a `Name: value`"), "{bad:?}");
        let long = [b"X-Long: ".as_slice(), &vec![b'a'; MAX_HEADER_BYTES], b"\r\n\r\n"].concat();
        let bad = frames(&long).await;
        assert!(bad[0].as_ref().unwrap_err().contains("longer than"), "{bad:?}");
        let cut = frames(b"Content-Length: 10\r\n\r\n{}").await;
        assert!(cut[0].as_ref().unwrap_err().contains("ended 2 bytes into"), "{cut:?}");
        let huge = frames(b"Content-Length: 99999999999\r\n\r\n{}").await;
        assert_eq!(huge, [Err("too large 99999999999".to_string())]);
    }
}
