//! A guest whose `meta()` misbehaves: it sleeps for two minutes, then
//! spins forever. `validate` and `run` must not hang on it.

use hwf_guest::{Harness, Meta, Result, Value, json};

struct HostileMeta;

impl Harness for HostileMeta {
    fn meta() -> Meta {
        std::thread::sleep(std::time::Duration::from_secs(120));
        let mut x: u64 = 0;
        loop {
            x = std::hint::black_box(x.wrapping_add(1));
        }
    }

    fn run(_args: Value) -> Result<Value> {
        Ok(json!({"ran": true}))
    }
}

hwf_guest::export_harness!(HostileMeta);
