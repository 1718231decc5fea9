//! The `Examples:` sections of `--help` (clap `after_help`). Every line
//! that starts with `  hwf ` is parsed by the CLI's own parser in this
//! module's test, so an example cannot name a flag that does not exist.

/// `hwf --help`.
pub const HWF: &str = "\
Examples:
  hwf init my-flows
      Start a project: hwf.toml, an example workflow that runs at once, editor support.
  hwf run flow.js --args '{\"topic\": \"wasm\"}'
      Run a JavaScript workflow (Claude Code's workflow script form) to the end.
  hwf run review.py
      Run a Python workflow script (the seed's syntax).
  hwf run hello.workflow.json --args '{\"name\": \"world\"}'
      Run a declarative JSON workflow (the seed's format).
  hwf validate flow.js
      Check a script (or a .wasm component) before running it.
  hwf script save research flow.js
      Save a workflow under a name; then `hwf run research`.
  hwf status <RUN_ID>
      A run's state, phases and calls.";

/// `hwf test --help`.
pub const TEST: &str = "\
Examples:
  hwf test flow.js --cassette <RUN_ID>
      Replay flow.js against a recorded run: no agent, no capability, no wait runs.
  hwf cassette export <RUN_ID> --output flow.cassette.json
      Keep the recording next to the workflow (redacted, content-addressed).
  hwf test flow.js --cassette flow.cassette.json --json
      In CI: exit 1 and one cassette_drift per call whose request changed.
  hwf run flow.js --resume-from <RUN_ID> --plan
      Before a resume: which calls would replay, which would run live and why.";

/// `hwf fork --help`.
pub const FORK: &str = "\
Examples:
  hwf fork <RUN_ID> --at 5 --output '\"a better summary\"'
      A new run where call 5 answered that; every other matching call replays.
  hwf fork <RUN_ID> --at 2 --output '{\"verdict\": \"ok\"}' --agents fixture.json --reason 'reviewer was wrong'
      Calls that depend on the edited output run live, here on the fixture agents.
  hwf fork <RUN_ID> --at 3 --input '{\"topic\": \"wasm gc\"}' --agents fixture.json
      Call 3 runs live with a new input; calls whose requests are unchanged replay.
  hwf fork <RUN_ID> --at 4 --decision deny --actor ana --reason 'not on a Friday'
      Deny approval gate 4 (the gated effect does not run); the decision is journaled with its actor.";

/// `hwf run --help`.
pub const RUN: &str = "\
Examples:
  hwf run flow.js --args '{\"topic\": \"wasm\"}'
      A JavaScript workflow: `export const meta = {…}`, then agent(), parallel(), pipeline().
  hwf run review.py --max-agent-calls 50 --max-tokens 200000
      A Python workflow script, with budgets.
  hwf run hello.workflow.json --args '{\"name\": \"world\"}' --agents fixture.json
      A JSON workflow, its agents answered by a fixture file.
  hwf run harness.wasm
      A compiled component (any language that builds to the hwf WIT world).
  hwf run research@2 --background
      Version 2 of a saved script, queued for the background runner.
  hwf run --resume-from <RUN_ID>
      Run again from the start; calls recorded by that run are answered from its journal.
  hwf run flow.js --workspace ./repo --allow fs.read --allow fs.list
      Capabilities limited to reading files, in ./repo only.
  hwf run flow.js --allow-class external_write --approval-id deploy=bash
      Also allow writes, and approve every bash call of this run.";

/// `hwf validate --help`.
pub const VALIDATE: &str = "\
Examples:
  hwf validate flow.js
      A JavaScript workflow: meta, syntax, imports; errors with their line.
  hwf validate review.py
      A Python workflow script: the constructs the runtime refuses, with their line.
  hwf validate pipeline.workflow.json --json
      A JSON workflow: errors and warnings (no policy, no output_schema, an undeclared
      input), each with a stable code and a JSON pointer.
  hwf validate harness.wasm
      A component: the import gate, compilation and its meta.";

/// `hwf script --help` and its subcommands.
pub const SCRIPT: &str = "\
Examples:
  hwf script save research flow.js
      Save a JavaScript, Python or JSON workflow, or a .wasm component, as research v000001.
  hwf script save research flow.js --replace
      Save a new version under a name that exists.
  hwf script list --versions
      Every saved script and its versions.
  hwf script inspect research@2
      One version's metadata (language, digest, meta).";

/// `hwf status --help`.
pub const STATUS: &str = "\
Examples:
  hwf status <RUN_ID>
      State, phases, calls (a replayed call shows what it took when it ran), result.
  hwf status <RUN_ID> --watch
      Redraw at each change until the run ends.
  hwf status <RUN_ID> --json
      The facade JSON.";

/// `hwf logs --help`.
pub const LOGS: &str = "\
Examples:
  hwf logs <RUN_ID>
      Log lines, phases, waits, decisions and how the run ended (with its error).
  hwf logs <RUN_ID> --follow --calls
      Keep printing until the run ends, every call included.";

/// `hwf overview --help`.
pub const OVERVIEW: &str = "\
Examples:
  hwf overview
      Runs, newest first.
  hwf overview --state failed --limit 5
      The five newest failed runs.";

/// `hwf control --help` and its subcommands.
pub const CONTROL: &str = "\
Examples:
  hwf control decide <RUN_ID> 2 respond --value '\"yes\"'
      Answer the question call 2 asks (human.ask).
  hwf control decide <RUN_ID> 3 approve --actor ana
      Approve the call waiting for approval.
  hwf control retry <RUN_ID> 4
      Run failed call 4 live again when the run resumes.
  hwf control stop <RUN_ID> --reason 'wrong branch'
      Stop the run for good.";

/// `hwf events --help`.
pub const EVENTS: &str = "\
Examples:
  hwf events send --source github --type pull_request.merged --subject org/repo#42
      Record an event that events.wait calls (and triggers) wait for.
  hwf events list
      The recorded events.";

/// `hwf runner --help`.
pub const RUNNER: &str = "\
Examples:
  hwf runner --once
      Execute queued runs and continue those whose waits resolved, then exit.
  hwf runner --concurrency 8
      Keep serving, eight runs at once.";

/// `hwf mcp --help`.
pub const MCP: &str = "\
Examples:
  hwf mcp
      An MCP server on stdio (for Claude Code, Hermes and other MCP clients).
  hwf mcp --http 127.0.0.1:8800
      Streamable HTTP at http://127.0.0.1:8800/mcp.";

/// `hwf serve --help`.
pub const SERVE: &str = "\
Examples:
  hwf serve
      The web console on http://127.0.0.1:8765, with a runner.
  hwf serve --port 0
      Any free port (printed).";

/// `hwf waits --help`.
pub const WAITS: &str = "\
Examples:
  hwf waits
      Every blocked wait (questions, approvals, events, timers) and the command that answers it.
  hwf waits --json
      The facade JSON.";

/// `hwf kanban --help` and its subcommands.
pub const KANBAN: &str = "\
Examples:
  hwf kanban use builtin
      kanban_agent steps put their cards on hwf's own board.
  hwf kanban list
      The cards, oldest first.
  hwf kanban move <CARD> done --actor ana
      Finish a card (ends the wait of the step that made it).";

/// `hwf triggers --help` and its subcommands.
pub const TRIGGERS: &str = "\
Examples:
  hwf triggers add on-merge --workflow release --source github --type pull_request.merged
      Start the saved workflow `release` on every matching event.
  hwf triggers add nightly --workflow research --cron '0 3 * * *' --args '{\"topic\": \"wasm\"}'
      Start it every night at 03:00.
  hwf triggers list
      The triggers and what they started.";

/// `hwf facade --help`.
pub const FACADE: &str = "\
Examples:
  hwf facade workflow --agents fixture.json
      One `workflow` call: the JSON request on stdin (e.g. {\"action\": \"run\", \"script_path\": \"flow.js\"}).
  hwf facade --list-tools
      The tools' names, descriptions and JSON Schemas.";

/// `hwf doctor --help`.
pub const DOCTOR: &str = "\
Examples:
  hwf doctor
      Config, state dir, compile cache, runtimes, runners and agent backends, one line each.
  hwf doctor --json
      The same as JSON.";

/// `hwf bench --help`.
pub const BENCH: &str = "\
Examples:
  hwf bench --quick
      Every figure from a few iterations (a smoke run).
  hwf bench --scale 4
      More iterations for steadier medians (docs/BENCHMARKS.md).";

/// `hwf store --help` and its subcommands.
pub const STORE: &str = "\
Examples:
  hwf store export --to postgres://hwf@db/hwf
      Copy this state dir's runs, scripts and events into PostgreSQL.
  hwf --store postgres://hwf@db/hwf store migrate
      Apply the database schema.
  hwf store repair <RUN_ID> --dry-run
      What repairing a damaged journal would keep and set aside.";

/// `hwf init --help`.
pub const INIT: &str = "\
Examples:
  hwf init my-flows
      A project in ./my-flows; then `cd my-flows && hwf run workflows/example.js`.
  hwf init --force
      Write the project here, overwriting its files where they exist.";

/// `hwf types --help`.
pub const TYPES: &str = "\
Examples:
  hwf types
      The .d.ts on stdout (hwf init writes it as hwf.d.ts; `hwf types > hwf.d.ts` refreshes
      a project's copy after upgrading hwf).";

/// `hwf capabilities --help`.
pub const CAPABILITIES: &str = "\
Examples:
  hwf capabilities
      Name, side-effect class and description of each capability a workflow may call here.
  hwf capabilities --json
      The same as JSON, with each input JSON Schema (capabilities an embedder registers have
      one; the embedder's Registry::typescript() declares them for editors).
  hwf capabilities --run 01J…
      Also what that run needs of its host (an embedder's capabilities, recorded when it was
      created) and which this host lacks: a run needing them is left waiting here (needs_host)
      for the embedder's host to continue.";

/// `hwf schema --help`.
pub const SCHEMA: &str = "\
Examples:
  hwf schema workflow
      The JSON Schema of *.workflow.json files (draft-07; hwf init writes it as workflow.schema.json).";

/// `hwf completions --help`.
pub const COMPLETIONS: &str = "\
Examples:
  hwf completions bash
      Source it: `source <(hwf completions bash)`, or save it in ~/.local/share/bash-completion/completions/hwf.
  hwf completions zsh
      Save it as _hwf in a directory of $fpath.
  hwf completions fish
      Save it as ~/.config/fish/completions/hwf.fish.";

#[cfg(test)]
mod tests {
    use super::*;

    /// Words of a command line: whitespace-separated, `'…'` quoting.
    fn words(line: &str) -> Vec<String> {
        let (mut out, mut cur, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
        for c in line.chars() {
            match c {
                '\'' => {
                    quoted = !quoted;
                    any = true;
                }
                c if c.is_whitespace() && !quoted => {
                    if any {
                        out.push(std::mem::take(&mut cur));
                        any = false;
                    }
                }
                c => {
                    cur.push(c);
                    any = true;
                }
            }
        }
        if any {
            out.push(cur);
        }
        out
    }

    #[test]
    fn every_example_parses() {
        let all = [
            HWF,
            RUN,
            VALIDATE,
            SCRIPT,
            STATUS,
            LOGS,
            OVERVIEW,
            CONTROL,
            EVENTS,
            RUNNER,
            MCP,
            SERVE,
            WAITS,
            KANBAN,
            TRIGGERS,
            FACADE,
            DOCTOR,
            BENCH,
            STORE,
            INIT,
            TYPES,
            SCHEMA,
            COMPLETIONS,
            TEST,
            FORK,
        ];
        let mut n = 0;
        for text in all {
            assert!(text.starts_with("Examples:\n"), "{text}");
            for line in text.lines().filter(|l| l.starts_with("  hwf ")) {
                let argv = words(line);
                if let Err(e) = super::super::command().try_get_matches_from(&argv) {
                    panic!("example {line:?} does not parse: {e}");
                }
                n += 1;
            }
        }
        assert!(n >= 50, "{n} examples");
    }

    /// Every command's `--help`, subcommands included, ends with examples.
    #[test]
    fn every_command_has_examples() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            let path = format!("{path} {}", cmd.get_name());
            if !cmd
                .get_after_help()
                .is_some_and(|h| h.to_string().starts_with("Examples:\n"))
            {
                missing.push(path.clone());
            }
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                walk(sub, &path, missing);
            }
        }
        let mut missing = Vec::new();
        walk(&super::super::command(), "", &mut missing);
        assert!(missing.is_empty(), "commands without examples: {missing:?}");
    }
}
