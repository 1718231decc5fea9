meta = {
    "name": "genexpr_walrus",
    "description": "A walrus inside a generator expression binds in the scope around it (any/all/sum/max witnesses)",
    "phases": ["scan"],
}

phase("scan")
alerts = (await agent("hermes.alerts.open", {}))["alerts"]
if any((hit := a)["sev"] == "page" for a in alerts):
    log(f"first page: {hit['id']}")
total = 0
count = sum(1 for a in alerts if (total := total + a["age"]) > 0)

def first_stale(items, limit):
    stale = None
    fresh = all((stale := a)["age"] < limit for a in items)
    return fresh, stale["id"] if stale else None

worst = max((score := a["age"] * (2 if a["sev"] == "page" else 1)) for a in alerts)
nested = list((y := n * 2) for n in (a["age"] for a in alerts))
return {"hit": hit["id"], "count": count, "total": total, "stale": [first_stale(alerts, 30), first_stale(alerts, 99), first_stale([], 1)],
        "worst": worst, "last_score": score, "nested": nested, "y": y}
