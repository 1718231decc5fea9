meta = {"name": "fstring_edges", "description": "f-string forms used in reports and logs"}

w, p = 10, 3
x = 3.14159265
name = "o'neil"
items = ["a", "b"]
d = {"k": 1, "n": None}
rows = []
rows.append(f"{x:{w}.{p}f}|{x:<{w}.2f}|{x:^{w}}|")
rows.append(f"{name!r} {name!s} {items!r} {d!r}")
rows.append(f"{x=}")
rows.append(f"{x = }")
rows.append(f"{x=:.2f}")
rows.append(f"{name=!s}")
rows.append(f"{len(items)=}")
rows.append(f"{'x'!r:>6}|{'left':<8}|{'c':*^7}|{42:=+8}|{3:03}|{-3:05}")
rows.append(f"{{literal}} {{{x:.1f}}}")
rows.append(f"{d['k']} {d.get('n')} {None} {True} {False:d} {True:>5}")
rows.append(f"{3.0:g} {1e-7:g} {100000000.0:g} {123456789.0:g} {0.0001:g} {1e16:g} {2.5:g}")
rows.append(f"{1234.5:+,.1f} {1234567:,} {1234567:_} {0.25:%} {0.256:.1%} {-0.0:.1f} {1e6:.2e} {12345.6789:.3e}")
rows.append(f"{255:#x} {255:#o} {255:#b} {255:08b} {255:X} {-255:x} {65:c} {10:n}")
rows.append(f"{'yes' if x > 3 else 'no'} {[i * 2 for i in range(3)]} {sum(i for i in range(5))}")
rows.append(f"{x!r:>20}|{str(x):.4}|{'abcdef':.3}|{'ab':>{w}}|")
rows.append(f"""{'multi'}
line {len(rows)}""")
rows.append(f"{1/3:.10f} {2/3:.0%} {1e21} {1e21:f} {12.0:.0f} {0.5:.0f} {1.5:.0f} {-1.5:.0f}")
rows.append(f"{12:>+5d}|{12:<5d}|{12:^5d}|{-12:^+6}|{3.5:08.2f}|{-3.5:08.2f}|{1234:,d}")
rows.append(f"{'naïve':>8}|{'日本':^6}|{(1, 'a')}|{[1.0, 2.5]}|{ {'a': 1} }")
width = 6
table = "\n".join(f"{k:<{width}}{v:>{width}.1f}" for k, v in [("alpha", 1.25), ("beta", 22.0), ("gamma", -3.05)])
rows.append(table)
return rows
