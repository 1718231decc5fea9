meta = {
    "name": "sla_report",
    "description": "Pull per-service uptime from agents, compute SLA credits and a ranked report",
}

services = args["services"]
target = args.get("target", 99.9)


async def fetch(name):
    r = await agent("hermes.uptime", {"service": name, "month": args["month"]}, schema={"minutes_down": "number", "incidents": "list"})
    return name, r


results = await pipeline(services, fetch)
MINUTES = 30 * 24 * 60
rows = []
for name, r in results:
    uptime = 100 * (MINUTES - r["minutes_down"]) / MINUTES
    credit = 0 if uptime >= target else (10 if uptime >= 99.0 else 25)
    rows.append((name, uptime, credit, len(r["incidents"])))

rows.sort(key=lambda row: (row[1], row[0]))
lines = []
for rank, (name, uptime, credit, n) in enumerate(rows, start=1):
    flag = "!" if credit else " "
    lines.append(f"{rank:>2}. {name:<10} {uptime:8.4f}% {flag} credit={credit:>2}% incidents={n}")
worst = rows[0]
avg = sum(u for _, u, _, _ in rows) / len(rows)
log("\n".join(lines))
log(f"avg {avg:.3f}%, worst {worst[0]} at {round(worst[1], 2)}%")
credits_due = {name: credit for name, _, credit, _ in rows if credit}
return {
    "table": lines,
    "avg": round(avg, 4),
    "credits_due": credits_due,
    "total_credit_pct": sum(credits_due.values()),
    "by_bucket": {k: [n for n, _, c, _ in rows if c == k] for k in (0, 10, 25)},
    "rounded": [round(u, 2) for _, u, _, _ in rows],
    "pct_text": [f"{u / 100:.2%}" for _, u, _, _ in rows],
}
