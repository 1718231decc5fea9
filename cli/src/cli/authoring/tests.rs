//! The project, the `.d.ts` and the workflow schema, without the binary
//! (the e2e suite's `authoring` module runs them through `hwf` and `tsc`).

use super::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn schema() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(WORKFLOW_SCHEMA).expect("the schema is JSON");
    jsonschema::draft7::new(&schema).expect("the schema is a draft-07 schema")
}

#[test]
fn every_repo_workflow_matches_the_schema() {
    let v = schema();
    let mut n = 0;
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("harnesses"))
        .expect("harnesses/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".workflow.json"))
        .collect();
    files.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/cli/authoring/template/example.workflow.json"));
    for f in files {
        let def: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&f).expect("read")).expect("a workflow is JSON");
        let errors: Vec<String> = v
            .iter_errors(&def)
            .map(|e| format!("{} at {}", e, e.instance_path))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", f.display());
        n += 1;
    }
    assert!(n >= 6, "{n} workflows");
}

#[test]
fn the_schema_refuses_what_the_runtime_refuses() {
    let v = schema();
    for bad in [
        // `type` instead of `kind`.
        serde_json::json!({"version": "1", "name": "x", "steps": [{"type": "agent", "id": "a", "agent": "x"}]}),
        // An unknown kind.
        serde_json::json!({"version": "1", "name": "x", "steps": [{"kind": "teleport", "id": "a"}]}),
        // No version.
        serde_json::json!({"name": "x", "steps": []}),
        // network: true.
        serde_json::json!({"version": "1", "name": "x", "policy": {"network": true}, "steps": []}),
        // An agent step with neither agent nor prompt.
        serde_json::json!({"version": "1", "name": "x", "steps": [{"kind": "agent", "id": "a"}]}),
        // An empty parallel.
        serde_json::json!({"version": "1", "name": "x", "steps": [{"kind": "parallel", "id": "p", "branches": []}]}),
        // eq without a value.
        serde_json::json!({"version": "1", "name": "x", "steps": [{"kind": "if", "id": "i",
            "condition": {"ref": "$ref:inputs.a", "op": "eq"}, "then": [{"kind": "agent", "id": "a", "agent": "x"}]}]}),
    ] {
        assert!(!v.is_valid(&bad), "accepted {bad}");
    }
}

#[test]
fn init_writes_every_file_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().expect("tempdir");
    let project = dir.path().join("p");
    let written = init(&project, false).expect("init");
    assert_eq!(written.len(), FILES.len());
    for f in FILES {
        let on_disk = std::fs::read_to_string(project.join(f.path)).expect("written");
        assert_eq!(on_disk, f.contents, "{}", f.path);
    }
    // Again: refused, naming the first file, nothing changed.
    std::fs::write(project.join("hwf.toml"), "# mine\n").expect("write");
    let e = init(&project, false).expect_err("refused");
    assert_eq!(e.code(), ErrorCode::AlreadyExists);
    assert!(e.to_string().contains("hwf.toml exists"), "{e}");
    assert_eq!(
        std::fs::read_to_string(project.join("hwf.toml")).expect("read"),
        "# mine\n"
    );
    // --force overwrites.
    init(&project, true).expect("init --force");
    assert_eq!(
        std::fs::read_to_string(project.join("hwf.toml")).expect("read"),
        FILES[0].contents
    );
}

/// Every option name the runtimes accept for `agent()` is declared in
/// `AgentOptions`, and nothing else (the table is
/// `hwf_guest::runtime::AGENT_OPTIONS`).
#[test]
fn the_dts_declares_every_agent_option() {
    let body = DTS
        .split("interface AgentOptions {")
        .nth(1)
        .and_then(|rest| rest.split("\n}").next())
        .expect("AgentOptions in hwf.d.ts");
    let declared: std::collections::BTreeSet<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.split_once("?:").map(|(name, _)| name))
        .collect();
    let accepted: std::collections::BTreeSet<&str> = hwf_guest::runtime::AGENT_OPTIONS
        .iter()
        .flat_map(|o| o.keys.iter().copied())
        .collect();
    assert_eq!(
        declared, accepted,
        "hwf.d.ts's AgentOptions (left) and AGENT_OPTIONS (right)"
    );
}
