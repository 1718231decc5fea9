meta = {
    "name": "match_triage",
    "description": "Fan out checkers, route each finding by its shape with match, then decide",
    "phases": [{"title": "check"}, {"title": "route"}, {"title": "decide"}],
}

phase("check")
checkers = ["lint", "tests", "security", "deps"]
reports = await parallel([lambda c=c: agent(f"Run the {c} checker on {args.get('repo', 'acme/shop')}", label=f"check:{c}") for c in checkers])

phase("route")
queues = {"block": [], "fix": [], "note": []}
unknown = []

def route(checker, finding):
    match finding:
        case {"kind": "vuln", "severity": "critical" | "high" as sev, "cve": str(cve), **extra}:
            return "block", f"{checker}: {cve} ({sev}){' +' + ','.join(sorted(extra)) if extra else ''}"
        case {"kind": "vuln", "severity": sev}:
            return "fix", f"{checker}: vuln {sev}"
        case {"kind": "test", "failed": int(n), "total": int(total)} if n > 0:
            return ("block" if n * 10 > total else "fix"), f"{checker}: {n}/{total} failing"
        case {"kind": "test"}:
            return "note", f"{checker}: green"
        case {"kind": "lint", "issues": [first, *more]}:
            return "fix", f"{checker}: {first['rule']} at {first['line']} (+{len(more)})"
        case {"kind": "lint", "issues": []}:
            return "note", f"{checker}: clean"
        case {"kind": "outdated", "packages": [*names]} if len(names) >= 3:
            return "fix", f"{checker}: {len(names)} outdated, first {names[0]}"
        case {"kind": "outdated", "packages": list(names)}:
            return "note", f"{checker}: {', '.join(names) or 'nothing'} outdated"
        case {"kind": kind}:
            return None, f"{checker}: unknown kind {kind!r}"
        case _:
            return None, f"{checker}: unreadable {finding!r}"

for checker, report in zip(checkers, reports):
    for finding in report.get("findings", []):
        queue, line = route(checker, finding)
        match queue:
            case None:
                unknown.append(line)
            case "block" | "fix" | "note" as q:
                queues[q].append(line)

phase("decide")
match (len(queues["block"]), len(queues["fix"])):
    case (0, 0):
        verdict = "ship"
    case (0, fixes) if fixes <= 2:
        verdict = f"ship after {fixes} fixes"
    case (0, _):
        verdict = "hold"
    case (blocks, _):
        verdict = f"blocked by {blocks}"
log(f"verdict: {verdict}")
return {"verdict": verdict, "queues": queues, "unknown": unknown}
