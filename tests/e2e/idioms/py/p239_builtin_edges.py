meta = {"name": "builtin_edges", "description": "sorted's reverse flag, a range's slices and pow of a negative base, as CPython"}
out = []
for flag in [None, [], 1.5, "yes", 2, True, 0]:
    try:
        out.append(["reverse", repr(flag), sorted([2, 3, 1], reverse=flag)])
    except TypeError as e:
        out.append(["reverse", repr(flag), "TypeError: " + str(e)])
r = range(5)
out.append([repr(r[::2]), repr(range(10)[1:8:3]), repr(range(0, 20, 3)[::-2]), repr(r[10:]), repr(r[::-1]), r[::2].stop, list(r[::2])])
z = pow(-8, 1 / 3)
out.append([round(z.real, 6), round(z.imag, 6), pow(2, 10), pow(2, -1), pow(-2, 3), pow(2.0, 0.5) == 2 ** 0.5])
return out
