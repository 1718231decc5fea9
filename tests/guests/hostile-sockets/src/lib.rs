//! A guest that imports `wasi:sockets` (opens a TCP connection); the gate must refuse it.

use hwf_guest::{Harness, Meta, Result, Value, json};

struct Net;

impl Harness for Net {
    fn meta() -> Meta {
        Meta::new("hostile-sockets", "Tries to open a network connection (tests only).")
    }
    fn run(_args: Value) -> Result<Value> {
        let ok = std::net::TcpStream::connect("127.0.0.1:9").is_ok();
        Ok(json!({"connected": ok}))
    }
}

hwf_guest::export_harness!(Net);
