meta = {"name": "format_specs", "description": "report numbers the way people format them"}

rows = [("build", 12.3456, 1234567), ("test", 0.5, 42), ("deploy", 100.0, -7)]
out = []
for name, secs, count in rows:
    out.append(f"{name:<8}|{secs:>8.2f}|{count:>10,}|{count:+d}|{secs:08.3f}")
pct = [f"{x:.1%}" for x in [0.1234, 1, 0.0005]]
bases = [f"{255:#x}", f"{255:b}", f"{255:o}", f"{255:#010b}", f"{3000000:_}", f"{-42:x}"]
aligned = [f"[{'mid':^9}]", f"[{'r':*>5}]", f"[{'l':-<5}]", f"[{7:^5}]", f"[{-3.5:=+8.1f}]"]
exps = [f"{12345.678:.3e}", f"{0.000123:g}", f"{1e20:g}", f"{123456789.0:g}", f"{1.5:g}", f"{2.0:.0f}"]
reprs = [f"{'quote'!r}", f"{[1, 'a']!s}", f"{'x'!a}", f"{3.0!r}"]
width = 6
prec = 2
nested = f"{3.14159:{width}.{prec}f}|"
builtin = [format(1234.5, ",.2f"), format(0.25, "%"), format("ab", ">4"), format(42), format(7, "03d"), format(True, "d")]
pad = [str(n).zfill(4) for n in [7, -7, 12345]]
debug = [f"{width=}", f"{prec + 1 = }"]
money = f"${1234.5:,.2f}"
thousands = f"{1234567.891:,.1f}"
return {"out": out, "pct": pct, "bases": bases, "aligned": aligned, "exps": exps, "reprs": reprs,
        "nested": nested, "builtin": builtin, "pad": pad, "debug": debug, "money": money, "thousands": thousands}
