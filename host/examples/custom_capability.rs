//! A host adapter with its own capability, in one page.
//!
//! ```sh
//! custom_capability run    STATE_DIR [ARGS]  # start deploy.js; it parks at the approval of `deploy`
//! hwf control decide RUN CALL approve  # (stock hwf) an operator approves it
//! hwf runner --once                    # (stock hwf) leaves the run waiting: needs_host
//! custom_capability runner STATE_DIR   # this host continues it; the run succeeds
//! custom_capability types              # TypeScript declarations of `deploy` for editors
//! ```

use hwf_host::{Capability, CapabilityError, Hwf, Registry, RunRequest, SideEffect, Target};
use serde_json::json;
use std::path::PathBuf;

/// `deploy`: an external write, with an input schema the broker checks
/// before the closure runs.
fn deploy() -> hwf_host::Result<Capability> {
    Capability::from_fn("deploy", SideEffect::ExternalWrite, |input| async move {
        let service = input["service"].as_str().unwrap_or_default().to_owned();
        if service == "db" {
            return Err(CapabilityError::Failed("the database is deployed by hand".into()));
        }
        Ok(json!({"deployed": service, "env": input["env"]}))
    })
    .describe("Deploy a service: {service, env} → {deployed, env}")
    .with_input_schema(json!({
        "type": "object",
        "required": ["service", "env"],
        "properties": {
            "service": {"type": "string", "description": "the service to deploy"},
            "env": {"enum": ["staging", "prod"]}
        },
        "additionalProperties": false
    }))
}

/// The built-ins (confined to the current directory) and `deploy`.
fn registry() -> hwf_host::Result<Registry> {
    let mut registry = Registry::with_builtins(".".as_ref())?;
    registry.register(deploy()?)?;
    Ok(registry)
}

/// The host: those capabilities, a policy that allows external writes
/// (each still needs an operator's approval, the default), and the store
/// `$HWF_STORE` names (PostgreSQL), else the state dir's files.
fn host(state: &str) -> hwf_host::Result<Hwf> {
    let mut policy = hwf_host::Policy::default();
    policy.allowed_classes.push(SideEffect::ExternalWrite);
    let store = hwf_host::config::resolve_store(None, &Default::default())?;
    Hwf::builder(state)
        .capabilities(registry()?)
        .policy(policy)
        .store_url(store)
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["run", state, ref rest @ ..] if rest.len() <= 1 => {
            let run_args = match rest.first() {
                Some(text) => serde_json::from_str(text)?,
                None => json!({"service": "web"}),
            };
            let workflow = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/deploy.js");
            let request = RunRequest::new(Target::Path(workflow), run_args);
            let outcome = host(state)?.run(request).await?;
            println!(
                "{}",
                json!({"run_id": outcome.snapshot.run_id, "state": outcome.snapshot.state, "waits": outcome.snapshot.waits})
            );
        }
        ["runner", state] => {
            // One pass, like `hwf runner --once`: every run this host can continue.
            let hwf = host(state)?;
            let scan = hwf.scan(hwf_host::runner::Listing::Unfinished, &|_| false, &mut |_| {})?;
            for id in scan.work {
                let turn = hwf.take_turn(&id).await;
                let snap = hwf.store().read_snapshot(&id)?;
                println!(
                    "{}",
                    json!({"run_id": id, "turn": format!("{turn:?}"), "state": snap.state, "result": snap.result})
                );
            }
        }
        ["types"] => print!("{}", registry()?.typescript()),
        _ => {
            eprintln!("usage: custom_capability run STATE_DIR [ARGS_JSON] | runner STATE_DIR | types");
            std::process::exit(2);
        }
    }
    Ok(())
}
