meta = {
    "name": "release_lane",
    "description": "QA and review gates for a PR head, fix loop until both pass or attempts run out",
    "phases": ["gates", "fix", "recommend"],
}

script_args = args or {}
pr = script_args["pr"]
head = script_args["head"]
max_attempts = script_args.get("max_attempts", 3)

gate_schema = {"pass": "boolean", "blockers": "list"}


async def run_gate(kind, attempt):
    return await agent(
        "hermes." + kind,
        {"pr": pr, "head": head, "attempt": attempt},
        label=f"{kind}:{attempt}",
        schema=gate_schema,
    )


history = []
attempt = 0
verdict = "hold"
while attempt < max_attempts:
    attempt += 1
    phase("gates")
    qa, review = await parallel([lambda: run_gate("qa", attempt), lambda: run_gate("reviewer", attempt)])
    blockers = list(qa["blockers"]) + list(review["blockers"])
    history.append({"attempt": attempt, "qa": qa["pass"], "review": review["pass"], "blockers": len(blockers)})
    log(f"attempt {attempt}: qa={'pass' if qa['pass'] else 'fail'} review={'pass' if review['pass'] else 'fail'} blockers={len(blockers)}")
    if qa["pass"] and review["pass"]:
        verdict = "ship"
        break
    phase("fix")
    fix = await agent(
        "hermes.fixer",
        {"pr": pr, "blockers": blockers},
        label=f"fix:{attempt}",
        schema={"new_head": "string", "fixed": "list"},
    )
    unfixed = [b for b in blockers if b not in fix["fixed"]]
    if unfixed:
        log(f"still open after fix {attempt}: {', '.join(unfixed)}")
    head = fix["new_head"]

phase("recommend")
rec = await agent(
    "hermes.release_manager",
    {"pr": pr, "head": head, "verdict": verdict, "history": history},
    label="recommend",
    schema={"summary": "string"},
)
return {"pr": pr, "exact_head": head, "verdict": verdict, "attempts": attempt, "history": history, "summary": rec["summary"]}
