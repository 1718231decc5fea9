meta = {"name": "bench-strings", "description": "String building: +=, f-strings, join, split, replace"}
n = (args or {}).get("n", 200000)
s = ""
for i in range(n):
    s += f"line {i}: ok\n"
parts = []
for i in range(n):
    parts.append("item-" + str(i) + "=" + str(i * 7 % 1000))
joined = ",".join(parts)
back = joined.split(",")
total = 0
for p in back:
    total += len(p)
upper = s[:100000].upper()
replaced = s[:200000].replace("ok", "fine")
md = ""
for i in range(n // 10):
    md += "| " + str(i).rjust(6) + " | " + ("yes" if i % 3 == 0 else "no") + " |\n"
return {"len": len(s), "joined": len(joined), "total": total, "upper": len(upper),
        "replaced": len(replaced), "md": len(md), "hit": "line 199999: ok" in s}
