meta = {"name": "phasors", "description": "imaginary literals in a small signal summary"}
z = 3 + 4j
w = 2j
samples = [1 + 1j, -2.5j, 0j, 1e3j, 2 - 0.5j]
total = sum(samples, 0j)
out = {
    "z": repr(z), "abs": abs(z), "w": repr(w), "neg": repr(-0j), "conj": repr(z.conjugate()),
    "total": repr(total), "prod": repr(z * w), "div": repr(z / (1 - 1j)), "pow": repr(1j ** 2),
    "eq": [1j * 1j == -1, 0j == 0, 2j != 2], "parts": [(s.real, s.imag) for s in samples],
    "types": [isinstance(x, complex) for x in [w, 1j + 1, 2j * 0.5, abs(w)]],
    "mags": sorted(round(abs(s), 3) for s in samples),
    "text": f"{z} | {w!r} | {str(-1j)}",
}
return out
