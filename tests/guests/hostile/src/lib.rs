//! A guest that misbehaves on purpose; `args.mode` picks how.

use hwf_guest::{Harness, Level, Meta, Result, Task, Value, branch, json, log, parallel, prompt};

struct Hostile;

/// Unbounded recursion whose frames live only on the wasm stack (values
/// kept across the call, none in linear memory): overflows the wasm stack
/// (`stack_overflow`), however small the guest's own shadow stack is.
#[inline(never)]
#[expect(unconditional_recursion, reason = "the point: it never returns, the stack overflows")]
fn recurse(n: u64) -> u64 {
    let a = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    let b = a.rotate_left(17) ^ n;
    let c = b.wrapping_add(a >> 3);
    let d = c.rotate_right(29).wrapping_mul(b | 1);
    let r = recurse(n.wrapping_add(1) ^ (d & 1));
    r.wrapping_mul(a ^ b).wrapping_add(c ^ d)
}

/// Unbounded recursion with large frames: overflows the guest's own
/// shadow stack in linear memory first (an out-of-bounds trap).
#[inline(never)]
#[expect(
    unconditional_recursion,
    reason = "the point: it never returns, the shadow stack overflows"
)]
fn recurse_big(n: u64, pad: &mut [u8; 256]) -> u64 {
    pad[(n % 256) as usize] = n as u8;
    let mut next = [0u8; 256];
    next.copy_from_slice(pad);
    recurse_big(n + 1, &mut next) + u64::from(next[0])
}

impl Harness for Hostile {
    fn meta() -> Meta {
        Meta::new("hostile", "Misbehaves on purpose (tests only).")
    }

    fn run(args: Value) -> Result<Value> {
        let mode = args["mode"].as_str().unwrap_or("");
        match mode {
            "loop" => {
                let mut x: u64 = 0;
                loop {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            }
            "alloc" => {
                let v = vec![1u8; 1 << 30];
                Ok(json!({"len": std::hint::black_box(v).len()}))
            }
            "recurse" => Ok(json!(recurse(0))),
            "recurse_big" => Ok(json!(recurse_big(0, &mut [0u8; 256]))),
            "stdout" => {
                let line = "x".repeat(1023);
                for _ in 0..10_240 {
                    println!("{line}");
                }
                Ok(json!("printed 10 MB"))
            }
            "panic" => panic!("boom: the harness panicked on purpose"),
            "exit" => std::process::exit(7),
            "calls" => loop {
                log(Level::Debug, "again");
            },
            "big_result" => Ok(json!("y".repeat(20 << 20))),
            "large_result" => Ok(json!({"items": (0..2000).collect::<Vec<u32>>()})),
            "print_secret" => {
                println!("token: Bearer abcdefghijklmnop1234 and sk-abcdefghijklmnopqrstu");
                eprintln!("password=hunter2hunter2");
                Ok(json!({"api_key": "plain-text-key", "note": "ghp_ABCDEFGHIJKLMNOPQRSTUVWX0123"}))
            }
            // Sleeps in a system call: virtual time makes it return at once.
            "sleep" => {
                let t0 = std::time::Instant::now();
                std::thread::sleep(std::time::Duration::from_secs(args["secs"].as_u64().unwrap_or(20)));
                Ok(json!({"slept_ms": t0.elapsed().as_millis() as u64}))
            }
            // Sleeps forever, `ms` (default 1000) at a time.
            "sleep_loop" => {
                let ms = args["ms"].as_u64().unwrap_or(1000);
                loop {
                    std::thread::sleep(std::time::Duration::from_millis(ms));
                }
            }
            // Branches that start branches that start branches…
            "bomb" => Ok(bomb(args["width"].as_u64().unwrap_or(8), 0)),
            // A 64 MiB prompt.
            "huge_prompt" => {
                let text = "p".repeat(64 << 20);
                let r = prompt(text).label("huge").call();
                Ok(json!({"error": r.err().map(|e| e.code().to_owned())}))
            }
            other => Err(hwf_guest::Error::msg(format!("unknown mode {other:?}"))),
        }
    }

    fn branch(name: &str, input: Value) -> Result<Value> {
        match name {
            "bomb" => {
                // Hold some memory while the children run.
                let ballast = vec![7u8; 8 << 20];
                let out = bomb(
                    input["width"].as_u64().unwrap_or(8),
                    input["level"].as_u64().unwrap_or(0),
                );
                Ok(json!({"ballast": std::hint::black_box(ballast).len(), "out": out}))
            }
            other => Err(hwf_guest::Error::msg(format!("unknown_branch: {other}"))),
        }
    }
}

/// Fan out `width` branches, each fanning out again, without end; the
/// codes the slots failed with, deduplicated.
fn bomb(width: u64, level: u64) -> Value {
    let tasks: Vec<Task> = (0..width)
        .map(|_| branch("bomb", json!({"width": width, "level": level + 1})))
        .collect();
    let mut codes = Vec::new();
    let mut children = Vec::new();
    for r in parallel(tasks, false) {
        match r {
            Ok(v) => children.push(v["out"].clone()),
            Err(e) => codes.push(e.code().to_owned()),
        }
    }
    codes.sort();
    codes.dedup();
    json!({"level": level, "codes": codes, "children": children})
}

hwf_guest::export_harness!(Hostile);
