meta = {"name": "text_table", "description": "plain-text tables and summaries built with % formatting, ljust and f-strings"}

rows = [
    {"name": "auth-service", "p50": 12.345, "p99": 250.0, "errors": 3, "share": 0.4567},
    {"name": "db", "p50": 1.2, "p99": 19.75, "errors": 0, "share": 0.05},
    {"name": "frontend-gateway-long-name", "p50": 102.0, "p99": 1999.999, "errors": 1200, "share": 0.4933},
]
widths = {"name": max(len(r["name"]) for r in rows), "num": 10}
header = "%-*s %*s %*s %8s %7s" % (widths["name"], "service", widths["num"], "p50 ms", widths["num"], "p99 ms", "errors", "share")
lines = [header, "-" * len(header)]
for r in rows:
    lines.append("%-*s %*.2f %*.1f %8d %6.1f%%" % (widths["name"], r["name"], widths["num"], r["p50"], widths["num"], r["p99"], r["errors"], r["share"] * 100))
lines.append("=" * len(header))
total_err = sum(r["errors"] for r in rows)
lines.append(f"{'total':<{widths['name']}} {'':>{widths['num']}} {'':>{widths['num']}} {total_err:>8,d} {sum(r['share'] for r in rows):>7.1%}")
md = ["| service | p99 | status |", "|---|---:|:---:|"]
for r in sorted(rows, key=lambda r: -r["p99"]):
    status = "🔴" if r["p99"] > 1000 else ("🟡" if r["p99"] > 100 else "🟢")
    md.append(f"| {r['name']} | {r['p99']:,.0f} | {status} |")
summary = "%s: %d services, worst %s (%.3g ms), %r" % ("latency", len(rows), rows[2]["name"], rows[2]["p99"], {"ok": total_err == 0})
pct = ["%5.1f%%" % (r["share"] * 100) for r in rows]
sci = ["%.2e" % v for v in [0.000123, 123456789, -1.5]]
gen = ["%g" % v for v in [0.0001, 0.00001, 123456, 1234567, 1.5, 100.0]]
padded = ["%05d" % 42, "%+d" % 5, "% d" % 7, "%x" % 255, "%#o" % 8, "%c" % 65, "%5s|" % "ab", "%-5s|" % "ab", "%.2s" % "abcdef", "%(a)s-%(b)03d" % {"a": "x", "b": 7}]
box_w = 30
box = ["+" + "-" * (box_w - 2) + "+"] + ["|" + t.center(box_w - 2) + "|" for t in ["Latency report", f"{len(rows)} services"]] + ["+" + "-" * (box_w - 2) + "+"]
wrapped = []
words = ("the quick brown fox jumps over the lazy dog " * 3).split()
line = ""
for w in words:
    if len(line) + len(w) + 1 > 24:
        wrapped.append(line)
        line = w
    else:
        line = f"{line} {w}" if line else w
wrapped.append(line)
return {"table": "\n".join(lines), "md": "\n".join(md), "summary": summary, "pct": pct, "sci": sci, "gen": gen, "padded": padded, "box": box, "wrapped": wrapped}
