//! The MCP server's stdio, with a JSON-RPC check in front: every line the
//! client sends is checked before rmcp sees it, and a malformed request gets
//! a JSON-RPC error reply (rmcp drops messages it cannot deserialize
//! without answering, which leaves the client waiting forever).
//!
//! - not UTF-8, or not JSON: `-32700` (parse error) with `"id": null`, and
//!   the session goes on with the next line;
//! - a line longer than [`MAX_LINE`]: `-32600` with `"id": null` (the rest
//!   of it is skipped unread into memory);
//! - an `id` that is not a string or a number: `-32600` with `"id": null`;
//!   a number with a fraction (`1.5`): `-32600` with that id;
//! - `jsonrpc` not `"2.0"`, a `method` that is not a string, `params` that
//!   are not an object, or neither a method nor a result/error: `-32600`
//!   (invalid request) with the request's id — or nothing for a
//!   notification (no id), as JSON-RPC says.
//!
//! Everything else passes through unchanged. Replies and rmcp's output are
//! written to stdout whole lines at a time, so they never interleave.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Bytes of a line kept in flight between the filter and rmcp.
const PIPE_BYTES: usize = 1 << 20;

/// The longest message accepted on stdin (a line), in bytes.
pub const MAX_LINE: usize = 64 << 20;

/// One line from the client: its bytes without the newline, or how long
/// it was when it passed [`MAX_LINE`] (what is past the limit is read and
/// dropped, never kept).
enum Line {
    Bytes(Vec<u8>),
    TooLong(usize),
}

/// Read the next line of at most `max` bytes; `None` at the end of input.
async fn next_line<R: tokio::io::AsyncBufRead + Unpin>(r: &mut R, max: usize) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut total = 0usize;
    loop {
        let buf = r.fill_buf().await?;
        if buf.is_empty() {
            return Ok(match (total, line.is_empty()) {
                (0, _) => None,
                (n, _) if n > max => Some(Line::TooLong(n)),
                _ => Some(Line::Bytes(line)),
            });
        }
        let (chunk, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        total = total.saturating_add(chunk.len());
        if total <= max {
            line.extend_from_slice(chunk);
        } else if !line.is_empty() {
            line = Vec::new();
        }
        let used = done.unwrap_or(chunk.len());
        r.consume(used);
        if done.is_some() {
            return Ok(Some(if total > max {
                Line::TooLong(total)
            } else {
                Line::Bytes(line)
            }));
        }
    }
}

/// `(reader, writer)` for `rmcp`'s `serve`, in place of
/// `rmcp::transport::stdio()`.
pub fn stdio() -> (
    impl AsyncRead + Unpin + Send + 'static,
    impl AsyncWrite + Unpin + Send + 'static,
) {
    let (server_in, mut to_server) = tokio::io::duplex(PIPE_BYTES);
    let (from_server, server_out) = tokio::io::duplex(PIPE_BYTES);
    let (replies, mut replies_rx) = mpsc::unbounded_channel::<String>();

    // stdin → check → rmcp (or an error reply).
    tokio::spawn(async move {
        let mut stdin = BufReader::new(tokio::io::stdin());
        while let Ok(Some(line)) = next_line(&mut stdin, MAX_LINE).await {
            let verdict = match line {
                Line::TooLong(n) => error(
                    Value::Null,
                    -32600,
                    &format!("invalid request: the message is {n} bytes, more than the {MAX_LINE} accepted"),
                ),
                Line::Bytes(bytes) => match String::from_utf8(bytes) {
                    Ok(line) => check_owned(line),
                    Err(e) => error(
                        Value::Null,
                        -32700,
                        &format!(
                            "parse error: the message is not UTF-8 (byte {})",
                            e.utf8_error().valid_up_to()
                        ),
                    ),
                },
            };
            match verdict {
                Verdict::Forward(line) => {
                    if to_server.write_all(line.as_bytes()).await.is_err() || to_server.write_all(b"\n").await.is_err()
                    {
                        break;
                    }
                }
                Verdict::Reply(reply) => {
                    let _ = replies.send(reply.to_string());
                }
                Verdict::Drop => {}
            }
        }
        let _ = to_server.shutdown().await;
    });

    // rmcp's output and the replies → stdout, whole lines.
    tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        let mut server = BufReader::new(from_server).lines();
        let mut replies_open = true;
        loop {
            // Replies first: one queued before a later request was
            // forwarded goes out before that request's answer.
            let line = tokio::select! {
            biased;
            r = replies_rx.recv(), if replies_open => match r {
                Some(r) => r,
                None => {
                    replies_open = false;
                    continue;
                }
            },
            l = server.next_line() => match l {
                Ok(Some(l)) => l,
                _ => {
                    // rmcp ended (stdin closed): the error replies
                    // already queued are still owed.
                    while let Ok(r) = replies_rx.try_recv() {
                        if stdout.write_all(r.as_bytes()).await.is_err() || stdout.write_all(b"\n").await.is_err() {
                            break;
                        }
                    }
                    let _ = stdout.flush().await;
                    break;
                }
            },
                    };
            if stdout.write_all(line.as_bytes()).await.is_err()
                || stdout.write_all(b"\n").await.is_err()
                || stdout.flush().await.is_err()
            {
                break;
            }
        }
    });
    (server_in, server_out)
}

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
enum Verdict {
    Forward(String),
    Reply(Value),
    Drop,
}

/// The JSON-RPC error one message (an HTTP body) earns, or `None` when it
/// passes (a notification with a problem passes too: HTTP answers it).
pub fn verdict(bytes: &[u8]) -> Option<Value> {
    match std::str::from_utf8(bytes) {
        Err(e) => Some(error_value(
            Value::Null,
            -32700,
            &format!("parse error: the message is not UTF-8 (byte {})", e.valid_up_to()),
        )),
        Ok(text) => match check(text) {
            Verdict::Reply(v) => Some(v),
            Verdict::Forward(_) | Verdict::Drop => None,
        },
    }
}

/// [`check`] a line, keeping it to forward.
fn check_owned(line: String) -> Verdict {
    match check(&line) {
        Verdict::Forward(_) => Verdict::Forward(line),
        other => other,
    }
}

fn error(id: Value, code: i64, message: &str) -> Verdict {
    Verdict::Reply(error_value(id, code, message))
}

fn error_value(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn check(line: &str) -> Verdict {
    if line.trim().is_empty() {
        return Verdict::Drop;
    }
    let msg: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error(Value::Null, -32700, &format!("parse error: {e}")),
    };
    let Value::Object(obj) = &msg else {
        // Batches are not part of MCP; anything else is not a message.
        return error(Value::Null, -32600, "invalid request: a JSON-RPC message is an object");
    };
    let id = match obj.get("id") {
        None => None,
        Some(id @ Value::String(_)) => Some(id.clone()),
        Some(id @ Value::Number(n)) if n.is_i64() || n.is_u64() => Some(id.clone()),
        Some(id @ Value::Number(_)) => {
            return error(id.clone(), -32600, "invalid request: a numeric id must be an integer");
        }
        Some(_) => return error(Value::Null, -32600, "invalid request: id must be a string or a number"),
    };
    let problem = if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        Some("jsonrpc must be \"2.0\"")
    } else if let Some(m) = obj.get("method") {
        if !m.is_string() {
            Some("method must be a string")
        } else if obj.get("params").is_some_and(|p| !p.is_object() && !p.is_null()) {
            Some("params must be an object")
        } else {
            None
        }
    } else if obj.contains_key("result") || obj.contains_key("error") {
        None
    } else {
        Some("a request needs a method")
    };
    match (problem, id) {
        (None, _) => Verdict::Forward(String::new()),
        (Some(p), Some(id)) => error(id, -32600, &format!("invalid request: {p}")),
        (Some(_), None) => Verdict::Drop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &str) -> Option<(Value, i64)> {
        match check(line) {
            Verdict::Reply(v) => Some((v["id"].clone(), v["error"]["code"].as_i64().unwrap_or(0))),
            _ => None,
        }
    }

    #[test]
    fn malformed_requests_with_an_id_are_answered() {
        for (line, want) in [
            (
                r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":"x"}"#,
                (json!(10), -32600),
            ),
            (
                r#"{"jsonrpc":"2.0","id":19,"method":"tools/list","params":[1,2]}"#,
                (json!(19), -32600),
            ),
            (
                r#"{"jsonrpc":"1.0","id":15,"method":"tools/list"}"#,
                (json!(15), -32600),
            ),
            (r#"{"id":"s","method":"tools/list"}"#, (json!("s"), -32600)),
            (r#"{"jsonrpc":"2.0","id":17,"method":5}"#, (json!(17), -32600)),
            (r#"{"jsonrpc":"2.0","id":18}"#, (json!(18), -32600)),
            (
                r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#,
                (Value::Null, -32600),
            ),
            (
                r#"{"jsonrpc":"2.0","id":30,"method":"tools/list""#,
                (Value::Null, -32700),
            ),
            ("[1, 2]", (Value::Null, -32600)),
            (
                r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}"#,
                (json!(1.5), -32600),
            ),
        ] {
            assert_eq!(code(line), Some(want), "{line}");
        }
    }

    #[test]
    fn good_messages_pass_and_bad_notifications_are_dropped() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":1,"message":"no"}}"#,
        ] {
            assert!(
                matches!(check_owned(line.to_owned()), Verdict::Forward(l) if l == line),
                "{line}"
            );
        }
        assert_eq!(check(r#"{"jsonrpc":"2.0","method":"x","params":7}"#), Verdict::Drop);
        assert_eq!(check("   "), Verdict::Drop);
    }

    #[tokio::test]
    async fn lines_are_bounded_and_bytes_kept_raw() {
        let input: &[u8] = b"abc\n0123456789\n\xff\xfe\nlast";
        let mut r = BufReader::with_capacity(4, input);
        let mut got = Vec::new();
        while let Some(l) = next_line(&mut r, 5).await.expect("read") {
            got.push(match l {
                Line::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
                Line::TooLong(n) => format!("too long: {n}"),
            });
        }
        assert_eq!(got, ["abc", "too long: 10", "\u{fffd}\u{fffd}", "last"]);
    }
}
