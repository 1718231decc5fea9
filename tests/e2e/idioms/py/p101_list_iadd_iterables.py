meta = {
    "name": "list_iadd_iterables",
    "description": "Accumulate findings with += from tuples, strings, dicts and generators",
    "phases": ["collect"],
}

phase("collect")
reports = await parallel([lambda s=s: agent(f"Scan {s}", label="scan") for s in ("api", "web")])
findings = []
for r in reports:
    findings += tuple(r["findings"])
    findings += (f.upper() for f in r.get("extra", []))
seen = findings
seen += {"manual-check": True}
letters = []
letters += "ok"
letters += range(2)
errors = []
for bad in (5, None, 2.5):
    try:
        letters += bad
    except TypeError as e:
        errors.append(str(e))
log(f"{len(findings)} findings, alias kept: {seen is findings}")
return {"findings": findings, "letters": letters, "errors": errors, "same": seen is findings}
