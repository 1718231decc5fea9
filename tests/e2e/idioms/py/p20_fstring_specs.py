meta = {"name": "fstring_specs", "description": "f-string format specs a report writer uses"}

rows = [("alpha", 1234.5678, 0.4567, 42), ("beta", -0.5, 1.0, 7), ("gamma", 1e7, 0.0001, -3)]
out = []
for name, amount, share, n in rows:
    out.append(f"{name:<8}|{amount:>12,.2f}|{share:>8.1%}|{n:+05d}|{n:x}|{n:#o}|{abs(n):b}")
w, p = 10, 3
out.append(f"[{3.14159:^{w}.{p}f}]")
out.append(f"[{'mid':*^9}] [{'l':-<4}] [{'r':_>4}]")
out.append(f"{1234567:,} {1234567:_} {0.000012345:.3e} {12345.678:.2E} {1.5:g} {1e-7:g} {123456789.0:g}")
total = sum(r[1] for r in rows)
out.append(f"{total=}")
out.append(f"{total = :.1f}")
out.append(f"{rows[0][0]!r} {rows[0][0]!s:>7} {'x'!r:>5}")
out.append(f"{'nested':{'>' if w > 5 else '<'}{w}}")
out.append(f"{12:>{w}} {-12:<6}| {12:=+6} {0.5:08.3f} {-0.5:08.3f}")
out.append(f"{True} {None} {[1, 'a']} {{'braces'}} {{{w}}}")
out.append(f"{7/3:.0f} {2.5:.0f} {3.5:.0f} {-2.5:.0f} {0.125:.2f} {0.375:.2f}")
out.append(f"{100:.2%} {0.0:.1%} {-0.256:.0%}")
out.append(f"{255:02X} {255:#06x} {65:c} {1e16} {1e-5} {123456789012345678.0}")
out.append(format(3.14159, ".2f") + format(42, "05d") + format("ab", ">4") + format(0.5, "%"))
return out
