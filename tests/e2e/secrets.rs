//! The secret corpus: more than 40 common credential formats, each planted
//! into every channel hwf stores or shows — run args (`run.json`), the
//! journal, results, transcripts, agent and capability labels, phases, guest
//! stdout/stderr across lines, bash results, controls, events, status,
//! overview, CLI and MCP output, inline scripts — and a backend echoing its
//! key and bash reading `/proc/$PPID/environ`; through the real binary, then
//! every byte of the state dir and every output is searched for each secret.

use crate::common::{Ctx, harnesses};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;

/// One planted credential: its format, the secret itself (what must never
/// appear), and the text it is planted as (the secret in its usual context).
struct Planted {
    format: &'static str,
    secret: String,
    text: String,
}

/// A deterministic pseudo-random body of `len` bytes from `alphabet`.
fn body(seed: u64, len: usize, alphabet: &[u8]) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            alphabet[(x % alphabet.len() as u64) as usize] as char
        })
        .collect()
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX: &[u8] = b"0123456789abcdef";
const LOWER: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// The corpus. Secrets are assembled at run time (no real credential, and
/// nothing a repository scanner flags), each one distinct.
fn corpus() -> Vec<Planted> {
    let mut n = 0u64;
    let mut b = |len: usize, alphabet: &[u8]| {
        n += 1;
        let mut s = body(n, len, alphabet);
        // Every body has a digit and a capital somewhere (real tokens do).
        if alphabet == ALNUM || alphabet == B64 || alphabet == B64URL {
            s.replace_range(0..2, "7Q");
        } else if alphabet == HEX || alphabet == LOWER {
            s.replace_range(0..1, "7");
        }
        s
    };
    let mut v: Vec<Planted> = Vec::new();
    let mut bare = |format: &'static str, secret: String| {
        v.push(Planted {
            format,
            text: secret.clone(),
            secret,
        })
    };
    bare("AWS access key id", format!("AKIA{}", b(16, UPPER)));
    bare("AWS temporary access key id", format!("ASIA{}", b(16, UPPER)));
    bare(
        "Slack bot token",
        format!("xoxb-{}-{}-{}", b(11, HEX), b(12, HEX), b(24, ALNUM)),
    );
    bare(
        "Slack user token",
        format!("xoxp-{}-{}-{}", b(11, HEX), b(12, HEX), b(32, HEX)),
    );
    bare(
        "Slack app-level token",
        format!("xapp-1-A{}-{}-{}", b(10, UPPER), b(13, HEX), b(64, HEX)),
    );
    bare("SendGrid API key", format!("SG.{}.{}", b(22, B64URL), b(43, B64URL)));
    bare("Twilio API key SID", format!("SK{}", b(32, HEX)));
    bare("Twilio account SID", format!("AC{}", b(32, HEX)));
    bare("Stripe live secret key", format!("sk_live_{}", b(24, ALNUM)));
    bare("Stripe test secret key", format!("sk_test_{}", b(24, ALNUM)));
    bare("Stripe restricted key", format!("rk_live_{}", b(24, ALNUM)));
    bare("Stripe webhook secret", format!("whsec_{}", b(32, ALNUM)));
    bare("GitHub personal token", format!("ghp_{}", b(36, ALNUM)));
    bare("GitHub OAuth token", format!("gho_{}", b(36, ALNUM)));
    bare("GitHub app token", format!("ghs_{}", b(36, ALNUM)));
    bare(
        "GitHub fine-grained token",
        format!("github_pat_11{}_{}", b(20, ALNUM), b(59, ALNUM)),
    );
    bare("GitLab personal token", format!("glpat-{}", b(20, B64URL)));
    bare("GitLab runner token", format!("glrt-{}", b(20, B64URL)));
    bare("GitLab deploy token", format!("gldt-{}", b(20, B64URL)));
    bare("Google API key", format!("AIza{}", b(35, B64URL)));
    bare("Google OAuth client secret", format!("GOCSPX-{}", b(28, B64URL)));
    bare("Azure AD client secret", format!("{}8Q~{}", b(3, ALNUM), b(34, ALNUM)));
    bare("npm token", format!("npm_{}", b(36, ALNUM)));
    bare("PyPI token", format!("pypi-AgEIcHlwaS5vcmc{}", b(50, B64URL)));
    bare(
        "Anthropic API key",
        format!("sk-ant-api03-{}-{}AA", b(80, B64URL), b(6, ALNUM)),
    );
    bare("OpenAI project key", format!("sk-proj-{}", b(48, B64URL)));
    bare(
        "OpenAI legacy key",
        format!("sk-{}T3BlbkFJ{}", b(20, ALNUM), b(20, ALNUM)),
    );
    bare("Hugging Face token", format!("hf_{}", b(34, ALNUM)));
    bare("DigitalOcean token", format!("dop_v1_{}", b(64, HEX)));
    bare(
        "Discord bot token",
        format!("MT{}.{}.{}", b(24, ALNUM), b(6, B64URL), b(38, B64URL)),
    );
    bare("Mailgun API key", format!("key-{}", b(32, LOWER)));
    bare("Shopify access token", format!("shpat_{}", b(32, HEX)));
    bare("Shopify shared secret", format!("shpss_{}", b(32, HEX)));
    bare(
        "JSON Web Token",
        format!("eyJhbGciOiJIUzI1NiJ9.eyJ{}.{}", b(40, B64URL), b(43, B64URL)),
    );
    bare("Vault token", format!("hvs.{}", b(90, B64URL)));
    bare(
        "Grafana service account token",
        format!("glsa_{}_{}", b(32, ALNUM), b(8, HEX)),
    );
    bare("Linear API key", format!("lin_api_{}", b(40, ALNUM)));
    bare("Notion token", format!("ntn_{}", b(46, ALNUM)));
    bare("Atlassian API token", format!("ATATT3xFfGF0{}", b(100, B64URL)));
    bare("Databricks token", format!("dapi{}", b(32, HEX)));
    bare("Sentry org token", format!("sntrys_{}", b(60, B64URL)));
    bare("Groq API key", format!("gsk_{}", b(52, ALNUM)));
    bare("Heroku API key", format!("HRKU-{}", b(60, B64URL)));
    bare("Postman API key", format!("PMAK-{}-{}", b(24, HEX), b(34, HEX)));
    bare("Doppler service token", format!("dp.st.{}", b(43, ALNUM)));
    bare("Perplexity API key", format!("pplx-{}", b(48, ALNUM)));
    bare("xAI API key", format!("xai-{}", b(80, ALNUM)));
    bare("Replicate token", format!("r8_{}", b(37, ALNUM)));
    bare("New Relic user key", format!("NRAK-{}", b(27, UPPER)));
    bare("Square access token", format!("sq0atp-{}", b(22, B64URL)));
    bare("age secret key", format!("AGE-SECRET-KEY-1{}", b(58, UPPER)));
    // In context: the secret is only recognisable by what surrounds it.
    let mut ctx = |format: &'static str, secret: String, text: String| v.push(Planted { format, secret, text });
    let aws = b(40, B64);
    ctx(
        "AWS secret access key (env)",
        aws.clone(),
        format!("AWS_SECRET_ACCESS_KEY={aws}"),
    );
    let aws2 = b(40, B64);
    ctx(
        "AWS secretAccessKey (JSON)",
        aws2.clone(),
        format!(
            r#"{{"accessKeyId": "AKIA{}", "secretAccessKey": "{aws2}"}}"#,
            b(16, UPPER)
        ),
    );
    let azure = format!("{}==", b(86, B64));
    ctx(
        "Azure storage account key",
        azure.clone(),
        format!(
            "DefaultEndpointsProtocol=https;AccountName=hwfacct;AccountKey={azure};EndpointSuffix=core.windows.net"
        ),
    );
    let sas = b(43, ALNUM);
    ctx(
        "Azure SAS signature",
        sas.clone(),
        format!("https://hwfacct.blob.core.windows.net/c/f?sv=2022-11-02&sr=b&sig={sas}&se=2030-01-01"),
    );
    let slack_hook = format!("T0{}/B0{}/{}", b(8, UPPER), b(8, UPPER), b(24, ALNUM));
    ctx(
        "Slack webhook URL",
        slack_hook.clone(),
        format!("https://hooks.slack.com/services/{slack_hook}"),
    );
    let discord_hook = format!("{}/{}", b(18, "0123456789".as_bytes()), b(68, B64URL));
    ctx(
        "Discord webhook URL",
        discord_hook.clone(),
        format!("https://discord.com/api/webhooks/{discord_hook}"),
    );
    let telegram = b(35, B64URL);
    ctx(
        "Telegram bot token",
        telegram.clone(),
        format!("7{}:{telegram}", b(9, HEX).replace(|c: char| !c.is_ascii_digit(), "4")),
    );
    let dd = b(32, HEX);
    ctx("Datadog API key", dd.clone(), format!("DD_API_KEY={dd}"));
    let dd_app = b(40, HEX);
    ctx(
        "Datadog application key",
        dd_app.clone(),
        format!("DD-APPLICATION-KEY: {dd_app}"),
    );
    let pw = b(20, ALNUM);
    ctx(
        "basic-auth URL",
        pw.clone(),
        format!("https://deploy:{pw}@git.example.com/repo.git"),
    );
    let pg = b(24, ALNUM);
    ctx(
        "database URL password",
        pg.clone(),
        format!("postgres://app:{pg}@db.internal:5432/prod"),
    );
    let bearer = b(40, B64URL);
    ctx(
        "bearer token",
        bearer.clone(),
        format!("Authorization: Bearer {bearer}"),
    );
    let basic = b(32, B64);
    ctx(
        "basic auth header",
        basic.clone(),
        format!("Authorization: Basic {basic}="),
    );
    let db_pw = format!("correct-horse-{}", b(12, LOWER));
    ctx("password assignment", db_pw.clone(), format!("DB_PASSWORD={db_pw}"));
    let cookie = b(48, B64URL);
    ctx("session cookie", cookie.clone(), format!("Cookie: session={cookie}"));
    let rsa = b(64, B64);
    ctx(
        "PEM RSA private key (lines)",
        rsa.clone(),
        format!(
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA{}\n{rsa}\n{}==\n-----END RSA PRIVATE KEY-----",
            b(48, B64),
            b(30, B64)
        ),
    );
    let ssh = b(64, B64);
    ctx(
        "OpenSSH private key (lines)",
        ssh.clone(),
        format!(
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{}\n{ssh}\n-----END OPENSSH PRIVATE KEY-----",
            b(40, B64)
        ),
    );
    let gcp = b(64, B64);
    ctx(
        "service-account private key (escaped JSON)",
        gcp.clone(),
        format!(
            r#"{{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg{gcp}\n-----END PRIVATE KEY-----\n"}}"#
        ),
    );
    // Issue 29, finding 11: shapes that were stored verbatim.
    use base64::Engine as _;
    let b64 = |t: &str| base64::engine::general_purpose::STANDARD.encode(t);
    let db_pass = b(18, ALNUM);
    ctx(
        "password assignment (DB_PASS)",
        db_pass.clone(),
        format!("DB_PASS={db_pass}"),
    );
    let slash_pw = format!("{}/{}", b(9, ALNUM), b(9, ALNUM));
    ctx(
        "URL password with a slash",
        slash_pw.clone(),
        format!("https://deploy:{slash_pw}@git.example.com/repo.git"),
    );
    let glued_gh = format!("ghp_{}", b(36, ALNUM));
    ctx("GitHub token glued to text", glued_gh.clone(), format!("abc{glued_gh}"));
    let glued_aws = format!("AKIA{}", b(16, UPPER));
    ctx("AWS key id glued to text", glued_aws.clone(), format!("x-{glued_aws}"));
    let inner = format!("ghp_{}", b(36, ALNUM));
    let encoded = b64(&inner);
    ctx(
        "base64-encoded token",
        encoded.clone(),
        format!("token blob {encoded} end"),
    );
    let pct = format!("ghp%5F{}", b(36, ALNUM));
    ctx(
        "percent-encoded token",
        pct.clone(),
        format!("https://api.example.com/search?q={pct}&page=2"),
    );
    let netrc = b(20, ALNUM);
    ctx(
        ".netrc password",
        netrc.clone(),
        format!("machine api.example.com login deploy password {netrc}"),
    );
    let pgpass = b(20, ALNUM);
    ctx(
        ".pgpass line",
        pgpass.clone(),
        format!("db.internal:5432:prod:app:{pgpass}"),
    );
    let docker = b64(&format!("deploy:{}", b(20, ALNUM)));
    ctx(
        "docker config.json auth",
        docker.clone(),
        format!(r#"{{"auths": {{"ghcr.io": {{"auth": "{docker}"}}}}}}"#),
    );
    let stripe_env = b(32, ALNUM);
    ctx(
        ".env STRIPE_KEY",
        stripe_env.clone(),
        format!("STRIPE_KEY={stripe_env}"),
    );
    let kube = b(88, B64);
    ctx(
        "kubeconfig client-key-data",
        kube.clone(),
        format!("users:\n- name: admin\n  user:\n    client-key-data: {kube}"),
    );
    v
}

/// Every planted text, one per line.
fn all_text(corpus: &[Planted]) -> String {
    corpus.iter().map(|p| p.text.as_str()).collect::<Vec<_>>().join("\n")
}

/// What was seen, by channel, for the leak check.
#[derive(Default)]
struct Seen(Vec<(String, String)>);

impl Seen {
    fn add(&mut self, channel: impl Into<String>, text: impl Into<String>) {
        self.0.push((channel.into(), text.into()));
    }

    fn run(&mut self, channel: &str, r: &crate::common::Run) {
        self.add(format!("{channel} (stdout)"), r.stdout.clone());
        self.add(format!("{channel} (stderr)"), r.stderr.clone());
    }

    /// Every (format, channel) pair where a secret appears.
    fn leaks(&self, corpus: &[Planted]) -> Vec<String> {
        let mut out = Vec::new();
        for p in corpus {
            for (channel, text) in &self.0 {
                if text.contains(&p.secret) {
                    out.push(format!("{} in {channel}", p.format));
                }
            }
        }
        out
    }
}

/// A fixture whose every agent answers with the whole corpus.
fn leaky_fixture(ctx: &Ctx, text: &str) -> String {
    let f = json!({"responses": [{"match": {}, "output": {"text": format!("here you go:\n{text}"), "note": text}}]});
    ctx.write("leaky.json", f.to_string())
        .to_str()
        .expect("utf8")
        .to_owned()
}

fn facade(ctx: &Ctx, tool: &str, request: &Value, agents: &str) -> crate::common::Run {
    let mut child = ctx
        .cmd()
        .args(["facade", tool, "--agents", agents])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn facade");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(request.to_string().as_bytes())
        .expect("write");
    child.wait_with_output().expect("facade").into()
}

/// One MCP session: `initialize`, then each `tools/call`; returns every
/// line the server wrote.
fn mcp(ctx: &Ctx, agents: &str, calls: &[Value]) -> String {
    let mut child = ctx
        .cmd()
        .args(["mcp", "--agents", agents])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut seen = String::new();
    // A request (`id`) or a notification (no `id`); a request waits for its
    // answer.
    let mut send = |id: Option<usize>, method: &str, params: Value, seen: &mut String| {
        let mut msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        if let Some(id) = id {
            msg["id"] = json!(id);
        }
        writeln!(stdin, "{msg}").expect("write");
        stdin.flush().expect("flush");
        while let Some(id) = id {
            let mut line = String::new();
            assert!(out.read_line(&mut line).expect("read") > 0, "mcp closed: {seen}");
            seen.push_str(&line);
            let v: Value = serde_json::from_str(&line).expect("json-rpc");
            if v["id"] == id {
                break;
            }
        }
    };
    send(
        Some(0),
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}}),
        &mut seen,
    );
    send(None, "notifications/initialized", json!({}), &mut seen);
    for (i, call) in calls.iter().enumerate() {
        send(Some(i + 1), "tools/call", call.clone(), &mut seen);
    }
    drop(stdin);
    let mut rest = String::new();
    let _ = out.read_to_string(&mut rest);
    seen.push_str(&rest);
    let _ = child.wait();
    seen
}

#[test]
fn the_corpus_has_at_least_forty_formats_and_each_is_recognised() {
    let corpus = corpus();
    assert!(corpus.len() >= 40, "{}", corpus.len());
    let mut secrets: Vec<&str> = corpus.iter().map(|p| p.secret.as_str()).collect();
    secrets.sort_unstable();
    secrets.dedup();
    assert_eq!(secrets.len(), corpus.len(), "every secret is distinct");
}

#[test]
fn every_format_in_every_channel_finds_zero_leaks() {
    let ctx = Ctx::manual_runner();
    let corpus = corpus();
    let text = all_text(&corpus);
    let agents = leaky_fixture(&ctx, &text);
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    std::fs::write(ws.join("secrets.txt"), &text).expect("write");
    let ws = ws.to_str().expect("utf8").to_owned();
    let flags = [
        "--agents",
        &agents,
        "--allow-class",
        "external_write",
        "--approval-id",
        "a",
        "--workspace",
        &ws,
    ];
    let mut seen = Seen::default();
    let mut runs = Vec::new();

    // 1. Run args (run.json), agent output (journal, transcripts, results),
    //    logs, a phase, guest stdout/stderr, bash reading the secrets from a
    //    file, the run's error message; JSON and human CLI output.
    let bash = json!({"name": "bash", "approval_id": "a", "input": {"argv": ["sh", "-c", "cat secrets.txt; cat secrets.txt >&2"]}});
    let leak = json!({"op": "leak", "note": text, "bash": bash});
    let out = ctx.run_json(harnesses::PROBE, &leak.to_string(), &flags);
    out.expect_code(1);
    runs.push(out.json()["data"]["run_id"].as_str().expect("id").to_owned());
    seen.run("hwf run --json (leak)", &out);
    let mut human = vec!["run", harnesses::PROBE, "--args"];
    let leak_s = leak.to_string();
    human.push(&leak_s);
    human.extend_from_slice(&flags);
    seen.run("hwf run (leak)", &ctx.hwf(&human));

    // 2. Raw stdout/stderr across lines (PEM bodies) and a result.
    let print = json!({"op": "print", "stdout": format!("start\n{text}\nend\n"), "stderr": text});
    let out = ctx.run_json(harnesses::PROBE, &print.to_string(), &flags);
    out.expect_code(0);
    runs.push(out.json()["data"]["run_id"].as_str().expect("id").to_owned());
    seen.run("hwf run (print)", &out);

    // 3. Agent and capability labels (one per format), through the program op.
    let mut nodes: Vec<Value> = corpus.iter().map(|p| json!({"try": {"agent": p.text}})).collect();
    nodes.push(
        json!({"try": {"cap": {"name": "bash", "label": text, "approval_id": "a", "input": {"argv": ["true"]}}}}),
    );
    let program = json!({"op": "program", "program": {"seq": nodes}});
    let out = ctx.run_json(harnesses::PROBE, &program.to_string(), &flags);
    runs.push(out.json()["data"]["run_id"].as_str().expect("id").to_owned());
    seen.run("hwf run (labels)", &out);

    // 4. Controls: a parked question answered and paused with the corpus
    //    as actor, channel, message id, reason and value.
    let ask = json!({"op": "cap", "name": "human.ask", "input": {"prompt": "go?"}});
    let out = ctx.run_json(harnesses::PROBE, &ask.to_string(), &flags);
    out.expect_code(3);
    let asked = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    runs.push(asked.clone());
    let value = serde_json::to_string(&text).expect("json");
    let pause = ctx.hwf(["control", "pause", &asked, "--actor", &text, "--reason", &text]);
    seen.run("hwf control pause", &pause);
    pause.expect_code(0);
    seen.run(
        "hwf control resume",
        &ctx.hwf(["control", "resume", &asked, "--actor", &text]),
    );
    let decide = ctx.hwf([
        "control",
        "decide",
        &asked,
        "1",
        "respond",
        "--value",
        &value,
        "--actor",
        &text,
        "--channel",
        &text,
        "--message-id",
        &text,
        "--reason",
        &text,
        "--json",
    ]);
    seen.run("hwf control decide", &decide);
    decide.expect_code(0);
    assert!(decide.stdout.contains("[REDACTED]"), "{decide:?}");
    seen.run("hwf runner --once", &ctx.hwf(["runner", "--once", "--agents", &agents]));

    // 5. Events: source, type, subject and payload.
    let payload = json!({"note": text}).to_string();
    let sent = ctx.hwf([
        "events",
        "send",
        "--source",
        &text,
        "--type",
        &text,
        "--subject",
        &text,
        "--payload",
        &payload,
        "--json",
    ]);
    seen.run("hwf events send", &sent);
    seen.run("hwf events list", &ctx.hwf(["events", "list", "--json"]));

    // 6. Inline scripts through the facade and MCP: refused, not stored.
    for p in &corpus {
        let src = format!(
            "export const meta = {{name: \"leaky\", description: \"d\"}};\nexport default async function () {{\n  const k = {};\n  return 1;\n}}\n",
            serde_json::to_string(&p.text).expect("json")
        );
        let out = facade(
            &ctx,
            "workflow",
            &json!({"action": "run_script", "script_source": src, "language": "js"}),
            &agents,
        );
        let v: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
        assert_eq!(v["error"]["code"], "invalid_script", "{}: {out:?}", p.format);
        seen.run(&format!("hwf facade run_script ({})", p.format), &out);
        let save = facade(
            &ctx,
            "workflow",
            &json!({"action": "script_save", "name": "leaky", "script_source": src, "language": "js"}),
            &agents,
        );
        seen.run(&format!("hwf facade script_save ({})", p.format), &save);
    }
    let inline: Vec<String> = std::fs::read_dir(ctx.state().join("inline"))
        .map(|d| {
            d.flatten()
                .map(|e| {
                    std::fs::read_to_string(e.path())
                        .unwrap_or_default()
                        .chars()
                        .take(300)
                        .collect()
                })
                .collect()
        })
        .unwrap_or_default();
    assert!(inline.is_empty(), "nothing is kept under inline/: {inline:#?}");
    let src = format!(
        "export default async function () {{ return {}; }}\n",
        serde_json::to_string(&text).expect("json")
    );
    let mut calls = vec![
        json!({"name": "workflow", "arguments": {"action": "run_script", "script_source": src, "language": "js"}}),
    ];
    for id in &runs {
        calls.push(json!({"name": "workflow_control", "arguments": {"action": "status", "run_id": id}}));
    }
    calls.push(json!({"name": "workflow_control", "arguments": {"action": "overview"}}));
    seen.add("hwf mcp", mcp(&ctx, &agents, &calls));

    // 7. Status and overview, human and JSON.
    for id in &runs {
        seen.run(&format!("hwf status {id}"), &ctx.hwf(["status", id]));
        seen.run(&format!("hwf status {id} --json"), &ctx.hwf(["status", id, "--json"]));
    }
    seen.run("hwf overview", &ctx.hwf(["overview"]));
    seen.run("hwf overview --json", &ctx.hwf(["overview", "--json"]));

    // Every byte of the state dir (journal, run.json, results, transcripts,
    // controls, events, inline, scripts).
    let state = ctx.all_state_text();
    assert!(state.contains("[REDACTED]"));
    for channel in ["journal.jsonl", "controls.jsonl", "events.jsonl"] {
        assert!(walk_has(&ctx.state(), channel), "{channel} was written");
    }
    seen.add("the state dir", state);
    let leaks = seen.leaks(&corpus);
    assert!(leaks.is_empty(), "{} leaks:\n{}", leaks.len(), leaks.join("\n"));
}

fn walk_has(dir: &std::path::Path, name: &str) -> bool {
    std::fs::read_dir(dir).into_iter().flatten().flatten().any(|e| {
        let p = e.path();
        p.file_name().is_some_and(|n| n == name) || (p.is_dir() && walk_has(&p, name))
    })
}

#[test]
fn bash_cannot_read_hwf_environment_through_proc() {
    let ctx = Ctx::new();
    // Not credential-named, so not redacted by value: only the process
    // defences (non-dumpable hwf, no capabilities for bash) keep it out.
    let neutral = "hwf-neutral-planted-9f3e1c";
    let named = "service-password-planted-5d2b7a";
    let ws = ctx.path("ws");
    std::fs::create_dir_all(&ws).expect("mkdir");
    // hwf's own environ, then every process's (grepped, to keep the output
    // small): neither may show the planted values.
    // hwf's pid as the host sees it: the parent of the command's parent
    // (the process between hwf and a command in its own PID namespace).
    let script = "read -r p c s pp r < /proc/self/stat; read -r p c s hwf r < /proc/$pp/stat; cat /proc/$hwf/environ; cat /proc/$pp/environ; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\" | grep -a -e PLANTED -e SERVICE_PASSWORD; done 2>/dev/null; echo done";
    let call = json!({"op": "cap", "name": "bash", "approval_id": "a", "input": {"argv": ["sh", "-c", script]}});
    let out: crate::common::Run = ctx
        .cmd()
        .env("HWF_PLANTED_NEUTRAL", neutral)
        .env("SERVICE_PASSWORD", named)
        .args([
            "run",
            harnesses::PROBE,
            "--args",
            &call.to_string(),
            "--json",
            "--allow-class",
            "external_write",
            "--approval-id",
            "a",
            "--workspace",
            ws.to_str().expect("utf8"),
        ])
        .output()
        .expect("spawn")
        .into();
    out.expect_code(0);
    let result = &out.json()["data"]["result"];
    let ok = &result["ok"];
    assert_eq!(ok["exit_code"], 0, "{out:?}");
    assert!(ok["stdout"].as_str().expect("stdout").contains("done"), "{result}");
    // The reads ran and were refused (not merely empty).
    assert!(
        ok["stderr"].as_str().expect("stderr").contains("Permission denied"),
        "{result}"
    );
    let state = ctx.all_state_text();
    for planted in [neutral, named] {
        assert!(!out.stdout.contains(planted), "{planted} leaked through bash: {result}");
        assert!(!state.contains(planted), "{planted} is in the state dir");
    }
}

#[test]
fn a_backend_echoing_its_key_never_gets_it_stored() {
    use std::net::TcpListener;
    let ctx = Ctx::new();
    // No recognisable shape: only registration by value catches it.
    let key = "plainvalue-echoed-by-backend-7731";
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let (mut auth, mut len) = (String::new(), 0usize);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                let lower = line.to_ascii_lowercase();
                if let Some(v) = lower.strip_prefix("content-length:") {
                    len = v.trim().parse().unwrap_or(0);
                }
                if lower.starts_with("authorization:") {
                    auth = line["authorization:".len()..]
                        .trim()
                        .trim_start_matches("Bearer ")
                        .to_owned();
                }
            }
            let mut body = vec![0u8; len];
            let _ = reader.read_exact(&mut body);
            let content = serde_json::to_string(&format!("your key is {auth} (and again: {auth})")).expect("json");
            let b = format!(
                r#"{{"choices":[{{"message":{{"role":"assistant","content":{content}}}}}],"usage":{{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}},"echo":"{auth}"}}"#
            );
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{b}",
                    b.len()
                )
                .as_bytes(),
            );
        }
    });
    let cfg = ctx.write(
        "hwf.toml",
        format!(
            "[agents.backends.echo]\nkind = \"openai\"\nbase_url = \"http://{addr}/v1\"\nmodel = \"m\"\napi_key_env = \"HWF_ECHO_BACKEND_VAR\"\n"
        ),
    );
    let program = json!({"op": "program", "program": {"seq": [{"agent": "echo"}, {"log": "done"}]}});
    let out: crate::common::Run = ctx
        .cmd()
        .env("HWF_ECHO_BACKEND_VAR", key)
        .args([
            "run",
            harnesses::PROBE,
            "--args",
            &program.to_string(),
            "--json",
            "--config",
        ])
        .arg(&cfg)
        .output()
        .expect("spawn")
        .into();
    out.expect_code(0);
    let answer = out.json()["data"]["result"][0].to_string();
    assert!(
        answer.contains("your key is [REDACTED]"),
        "the backend answered: {answer}"
    );
    let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let status = ctx.hwf(["status", &id, "--json"]);
    let state = ctx.all_state_text();
    assert!(!state.contains(key), "the key is in the state dir");
    assert!(
        !out.stdout.contains(key) && !status.stdout.contains(key),
        "the key is in CLI output"
    );
}

/// Run `hwf` with `args`, killing it if it has not ended by `deadline`;
/// returns the output, or `None` if it had to be killed (it hung).
fn hwf_within(ctx: &Ctx, args: &[&str], deadline: std::time::Duration) -> Option<crate::common::Run> {
    let mut child = ctx
        .cmd()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let end = std::time::Instant::now() + deadline;
    loop {
        if child.try_wait().expect("wait").is_some() {
            return Some(child.wait_with_output().expect("output").into());
        }
        if std::time::Instant::now() >= end {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn inputs_that_are_not_regular_files_are_refused_at_once() {
    let ctx = Ctx::new();
    let fifo = |name: &str| {
        let p = ctx.path(name);
        let made = std::process::Command::new("mkfifo").arg(&p).status().expect("mkfifo");
        assert!(made.success());
        p.to_str().expect("utf8").to_owned()
    };
    let (agents_fifo, config_fifo, script_fifo) = (fifo("agents.json"), fifo("hwf-fifo.toml"), fifo("flow.js"));
    let big = ctx.write("big.toml", "# padding\n".repeat(200_000));
    let big = big.to_str().expect("utf8");
    let hello = harnesses::HELLO;
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec!["run", hello, "--json", "--agents", "/dev/zero"],
            "invalid_args",
            "not a regular file",
        ),
        (
            vec!["run", hello, "--json", "--agents", &agents_fifo],
            "invalid_args",
            "not a regular file",
        ),
        (
            vec!["run", hello, "--json", "--config", "/dev/zero"],
            "invalid_args",
            "not a regular file",
        ),
        (
            vec!["run", hello, "--json", "--config", &config_fifo],
            "invalid_args",
            "not a regular file",
        ),
        (
            vec!["run", hello, "--json", "--config", big],
            "invalid_config",
            "over 1048576 bytes",
        ),
        (
            vec!["run", &script_fifo, "--json"],
            "invalid_args",
            "not a regular file",
        ),
        (
            vec!["validate", &script_fifo, "--json"],
            "invalid_args",
            "not a regular file",
        ),
    ];
    for (args, code, message) in cases {
        // Generous for a loaded machine; a blocked read never ends at all.
        let out =
            hwf_within(&ctx, &args, std::time::Duration::from_secs(30)).unwrap_or_else(|| panic!("hwf {args:?} hung"));
        out.expect_code(2);
        let v = out.json();
        assert_eq!(v["error"]["code"], code, "{args:?}: {v}");
        assert!(
            v["error"]["message"].as_str().unwrap_or("").contains(message),
            "{args:?}: {v}"
        );
    }
}

#[test]
fn mcp_answers_every_malformed_request_that_has_an_id() {
    let ctx = Ctx::new();
    let mut child = ctx
        .cmd()
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let out = BufReader::new(child.stdout.take().expect("stdout"));
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "e2e", "version": "0"}}});
    let bad = [
        r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":"not an object"}"#,
        r#"{"jsonrpc":"2.0","id":11,"method":"tools/list","params":[1,2]}"#,
        r#"{"jsonrpc":"1.0","id":12,"method":"tools/list"}"#,
        r#"{"id":13,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":14,"method":5}"#,
        r#"{"jsonrpc":"2.0","id":15}"#,
        r#"{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":5}}"#,
        r#"{"jsonrpc":"2.0","id":17,"method":"no/such/method","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":{"an":"object"},"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":18,"method":"tools/list""#,
    ];
    writeln!(stdin, "{init}").expect("write");
    writeln!(stdin, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#).expect("write");
    for line in bad {
        writeln!(stdin, "{line}").expect("write");
    }
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":99,"method":"ping"}}"#).expect("write");
    stdin.flush().expect("flush");
    let mut want: std::collections::BTreeSet<i64> = (10..=17).chain([99]).collect();
    let mut null_ids = 0;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while (!want.is_empty() || null_ids < 2) && std::time::Instant::now() < deadline {
        let Ok(v) = rx.recv_timeout(std::time::Duration::from_millis(200)) else {
            continue;
        };
        match v["id"].as_i64() {
            Some(id) => {
                if id != 99 && id != 1 {
                    assert!(v["error"]["code"].is_i64(), "{v}");
                }
                want.remove(&id);
            }
            None if v.get("id") == Some(&Value::Null) => null_ids += 1,
            None => {}
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    assert!(want.is_empty(), "no reply to ids {want:?}");
    assert_eq!(null_ids, 2, "the bad id and the unparsable line get id-null errors");
}

/// Issue 29, finding 11: a PEM private key logged one line per call (each
/// log line redacted on its own, so the `BEGIN` line no longer covers the
/// body) left its body lines stored verbatim. Each 64-character body line
/// alone on its line is redacted.
#[test]
fn a_pem_key_logged_one_line_per_call_is_never_stored() {
    let ctx = Ctx::manual_runner();
    let lines = [
        "-----BEGIN RSA PRIVATE KEY-----".to_owned(),
        format!(
            "MIIEowIBAAKCAQEA{}",
            body(901, 48, B64).replacen(|c: char| c.is_ascii_lowercase(), "7", 1)
        ),
        format!("7Q{}", body(902, 62, B64)),
        format!("7Q{}", body(903, 62, B64)),
        "-----END RSA PRIVATE KEY-----".to_owned(),
    ];
    let script = format!(
        "export const meta = {{ name: \"pem-log\", description: \"logs a key line by line\" }};\nconst lines = {};\nfor (const l of lines) console.log(l);\nreturn {{ n: lines.length }};\n",
        serde_json::to_string(&lines).expect("json")
    );
    // A script run from its file is not stored, so it runs; each line is
    // one log call.
    ctx.write("pem.js", &script);
    let out = ctx.hwf(["run", "pem.js", "--json"]);
    out.expect_code(0);
    let id = out.json()["data"]["run_id"].as_str().expect("id").to_owned();
    let mut seen = ctx.all_state_text();
    for args in [vec!["logs", id.as_str()], vec!["status", id.as_str(), "--json"]] {
        let r = ctx.hwf(&args);
        seen.push_str(&r.stdout);
        seen.push_str(&r.stderr);
    }
    for line in &lines[1..4] {
        assert!(!seen.contains(line.as_str()), "a key line was stored or shown: {line}");
    }
}
