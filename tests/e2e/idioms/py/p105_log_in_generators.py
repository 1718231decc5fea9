meta = {
    "name": "log_in_generators",
    "description": "log() from a generator's body, a sorted key and a map callback, in order with the other lines",
    "phases": ["parse", "rank"],
}

phase("parse")
raw = (await agent("List the findings", label="findings"))["lines"]

def parse(lines):
    for n, line in enumerate(lines, 1):
        sev, _, text = line.partition(":")
        if not text:
            log(f"skipped line {n}: {line!r}")
            continue
        yield sev.strip().lower(), text.strip()
    log("parse done")

log("before parsing")
items = list(parse(raw))

phase("rank")
order = {"high": 0, "medium": 1, "low": 2}

def key(item):
    if item[0] not in order:
        log(f"unknown severity {item[0]}")
    return order.get(item[0], 9), item[1]

ranked = sorted(items, key=key)
shouted = list(map(lambda it: log(f"map {it[1][:10]}") or it[1].upper(), ranked[:2]))
log({"ranked": len(ranked)})
return {"ranked": ranked, "shouted": shouted}
