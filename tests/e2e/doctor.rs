//! `hwf doctor` catches missing agent credentials before a run does
//! (issue 26): a command backend whose program is not there, an OpenAI
//! backend whose `api_key_env` is unset (named, its value never shown),
//! Claude Code with no credentials (a warning), and a bad
//! `HWF_RUNNER_AUTOSTART`.

use crate::common::Ctx;
use serde_json::Value;
use std::process::Command;

/// The variables Claude Code logs in with.
const CLAUDE_VARS: [&str; 4] = [
    "ANTHROPIC_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CONFIG_DIR",
];

/// `hwf doctor --json` with `config` as hwf.toml and `env` set (after
/// removing the Claude variables of the test's own environment); its
/// checks, the exit code asserted against them.
fn checks(ctx: &Ctx, config: &str, env: &[(&str, &str)]) -> Vec<Value> {
    let cfg = ctx.write("hwf.toml", config);
    let mut cmd: Command = ctx.cmd();
    for v in CLAUDE_VARS {
        cmd.env_remove(v);
    }
    cmd.envs(env.iter().copied());
    let out: crate::common::Run = cmd
        .args(["doctor", "--json", "--config", cfg.to_str().expect("utf8")])
        .output()
        .expect("hwf doctor")
        .into();
    let report = out.json()["data"].clone();
    let checks = report["checks"].as_array().expect("checks").clone();
    let all_ok = checks.iter().all(|c| c["ok"] == true);
    assert_eq!(report["ok"], all_ok, "{report:#}");
    out.expect_code(if all_ok { 0 } else { 1 });
    checks
}

/// As [`checks`]; the checks by name.
fn doctor(ctx: &Ctx, config: &str, env: &[(&str, &str)]) -> impl Fn(&str) -> Value + use<> {
    let checks = checks(ctx, config, env);
    move |name: &str| -> Value {
        checks
            .iter()
            .find(|c| c["check"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no check {name}: {checks:#?}"))
    }
}

fn detail(c: &Value) -> &str {
    c["detail"].as_str().expect("detail")
}

/// A PATH of `dir` and the test's own PATH.
fn path_with(dir: &std::path::Path) -> String {
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default())
}

/// An executable `name` in `<ctx>/bin`.
fn fake_program(ctx: &Ctx, name: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = ctx.path("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let p = bin.join(name);
    std::fs::write(&p, "#!/bin/sh\necho '{}'\n").expect("write");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    bin
}

#[test]
fn a_command_backend_whose_program_is_missing_fails_naming_backend_program_and_fix() {
    let ctx = Ctx::new();
    std::fs::write(ctx.path("not-executable"), "#!/bin/sh\n").expect("write");
    let find = doctor(
        &ctx,
        "[agents]\ndefault = \"gone\"\n\
         [agents.backends.gone]\nkind = \"command\"\nargv = [\"hwf-no-such-agent-cli\", \"-p\"]\n\
         [agents.backends.rel]\nkind = \"command\"\nargv = [\"./nowhere/agent\"]\n\
         [agents.backends.noexec]\nkind = \"command\"\nargv = [\"./not-executable\"]\n\
         [agents.backends.there]\nkind = \"command\"\nargv = [\"sh\", \"-c\", \"cat\"]\n",
        &[],
    );
    let c = find("agents.backends.gone");
    assert_eq!(
        (c["ok"].clone(), c["level"].clone()),
        (false.into(), "fail".into()),
        "{c}"
    );
    for needle in [
        "gone",
        "\"hwf-no-such-agent-cli\"",
        "not on PATH",
        "install it",
        "argv[0]",
    ] {
        assert!(detail(&c).contains(needle), "{needle:?} not in {c}");
    }
    for name in ["rel", "noexec"] {
        let c = find(&format!("agents.backends.{name}"));
        assert_eq!(c["ok"], false, "{c}");
        assert!(detail(&c).contains("is not an executable file"), "{c}");
        assert!(detail(&c).contains(&format!("backend {name}")), "{c}");
    }
    assert_eq!(find("agents.backends.there")["ok"], true);
    assert_eq!(detail(&find("agents.backends.there")), "sh found");
}

#[test]
fn an_unset_api_key_env_fails_naming_the_variable_and_a_set_one_is_never_shown() {
    let ctx = Ctx::new();
    let config = "[agents.backends.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\
                  model = \"m\"\napi_key_env = \"HWF_DOCTOR_TEST_KEY\"\n";
    let find = doctor(&ctx, config, &[]);
    let c = find("agents.backends.local.api_key_env");
    assert_eq!(c["ok"], false, "{c}");
    assert!(detail(&c).contains("HWF_DOCTOR_TEST_KEY"), "{c}");
    assert!(detail(&c).contains("backend local"), "{c}");
    // Set but empty is not set.
    let find = doctor(&ctx, config, &[("HWF_DOCTOR_TEST_KEY", "  ")]);
    assert_eq!(find("agents.backends.local.api_key_env")["ok"], false);
    let secret = "sk-doctor-0123456789abcdefghijklmnopqrstuv";
    let find = doctor(&ctx, config, &[("HWF_DOCTOR_TEST_KEY", secret)]);
    let c = find("agents.backends.local.api_key_env");
    assert_eq!(c["ok"], true, "{c}");
    assert_eq!(detail(&c), "HWF_DOCTOR_TEST_KEY is set");
    assert!(!c.to_string().contains(secret));
}

#[test]
fn claude_code_with_no_credentials_is_a_warning_that_it_may_not_be_logged_in() {
    let ctx = Ctx::new();
    let bin = fake_program(&ctx, "claude");
    let config =
        "[agents.backends.claude]\nkind = \"command\"\nargv = [\"claude\", \"-p\", \"--output-format\", \"json\"]\n";
    let path = path_with(&bin);
    // HOME is the test dir: no ~/.claude.
    let find = doctor(&ctx, config, &[("PATH", &path)]);
    assert_eq!(find("agents.backends.claude")["ok"], true);
    let c = find("agents.backends.claude.login");
    assert_eq!(
        (c["ok"].clone(), c["level"].clone()),
        (true.into(), "warn".into()),
        "{c}"
    );
    assert!(detail(&c).contains("may not be logged in"), "{c}");
    assert!(detail(&c).contains("ANTHROPIC_API_KEY"), "{c}");
    // A login's credentials file.
    std::fs::create_dir_all(ctx.path(".claude")).expect("dir");
    std::fs::write(ctx.path(".claude/.credentials.json"), "{}").expect("write");
    let c = doctor(&ctx, config, &[("PATH", &path)])("agents.backends.claude.login");
    assert_eq!(c["level"], "info", "{c}");
    assert!(detail(&c).contains(".credentials.json"), "{c}");
    std::fs::remove_file(ctx.path(".claude/.credentials.json")).expect("rm");
    // An API key: named, never shown.
    let key = "sk-ant-api03-doctortest0123456789abcdefghijkl";
    let c = doctor(&ctx, config, &[("PATH", &path), ("ANTHROPIC_API_KEY", key)])("agents.backends.claude.login");
    assert_eq!(c["level"], "info", "{c}");
    assert_eq!(detail(&c), "ANTHROPIC_API_KEY is set");
    // Another program has no login check.
    let other = checks(
        &ctx,
        "[agents.backends.other]\nkind = \"command\"\nargv = [\"sh\"]\n",
        &[("PATH", &path)],
    );
    assert!(
        other.iter().any(|c| c["check"] == "agents.backends.other"),
        "{other:#?}"
    );
    assert!(
        !other.iter().any(|c| c["check"] == "agents.backends.other.login"),
        "{other:#?}"
    );
}

#[test]
fn doctor_names_a_bad_autostart_value_and_says_when_autostart_is_off() {
    let ctx = Ctx::new();
    let find = doctor(&ctx, "", &[("HWF_RUNNER_AUTOSTART", "perhaps")]);
    let c = find("runner.autostart");
    assert_eq!(c["ok"], false, "{c}");
    assert!(
        detail(&c).contains("HWF_RUNNER_AUTOSTART") && detail(&c).contains("perhaps"),
        "{c}"
    );
    let find = doctor(&ctx, "[runner]\nautostart = false\n", &[]);
    assert!(
        detail(&find("runners")).contains("autostart is off"),
        "{}",
        find("runners")
    );
    let find = doctor(&ctx, "", &[]);
    assert!(detail(&find("runners")).contains("on demand"), "{}", find("runners"));
}
