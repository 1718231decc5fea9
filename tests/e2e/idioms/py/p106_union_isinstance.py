meta = {
    "name": "union_isinstance",
    "description": "Validate agent fields with PEP 604 unions: isinstance(x, int | float), str | None, in tuples and repr",
    "phases": ["validate"],
}

Number = int | float
MaybeText = str | None

def check(record: dict) -> list[str]:
    problems = []
    if not isinstance(record.get("score"), Number) or isinstance(record.get("score"), bool):
        problems.append(f"score must be {Number}, got {record.get('score')!r}")
    if not isinstance(record.get("note"), MaybeText):
        problems.append(f"note must be {MaybeText!r}")
    if not isinstance(record.get("tags"), (list, tuple | None)):
        problems.append("tags must be a list, a tuple or None")
    return problems

phase("validate")
records = (await agent("Extract the scored records", label="records"))["records"]
report = {r.get("id", "?"): check(r) for r in records}
bad = sorted(k for k, v in report.items() if v)
log(f"{len(records) - len(bad)} of {len(records)} records valid; unions: {Number} / {MaybeText}")
return {"report": report, "bad": bad, "same": (int | float) == (float | int), "sub": issubclass(bool, Number),
        "collapsed": repr(int | int), "wide": repr(dict | list | None)}
