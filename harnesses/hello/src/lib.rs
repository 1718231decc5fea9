//! The hello workflow: a greeter agent, then an uppercaser agent.
//!
//! Args: `{"name": "world"}` (default `"world"`).
//! Result: `{"greeting": "hello, world", "result": "HELLO, WORLD"}` on the
//! bundled fixture.

use hwf_guest::{Harness, Meta, Result, Value, agent, info, json, phase};

struct Hello;

impl Harness for Hello {
    fn meta() -> Meta {
        Meta::new(
            "hello",
            "Greets someone with the greeter agent, then uppercases the greeting.",
        )
        .when_to_use("A smoke test of an hwf installation and its agent backend.")
        .phase_with_detail("greet", "hermes.greeter writes a greeting")
        .phase_with_detail("shout", "hermes.uppercaser uppercases it")
        .args_schema(json!({
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "additionalProperties": false
        }))
    }

    fn run(args: Value) -> Result<Value> {
        let name = args.get("name").and_then(Value::as_str).unwrap_or("world");
        phase("greet");
        let greeting = agent("hermes.greeter")
            .input(json!({"subject": name}))
            .label("greet")
            .phase("greet")
            .schema(json!({"greeting": "string"}))
            .call()?;
        let greeting = greeting["greeting"].clone();
        phase("shout");
        let shout = agent("hermes.uppercaser")
            .input(json!({"text": greeting}))
            .label("shout")
            .phase("shout")
            .schema(json!({"result": "string"}))
            .call()?;
        info(format!("greeted {name}"));
        Ok(json!({"greeting": greeting, "result": shout["result"]}))
    }
}

hwf_guest::export_harness!(Hello);
