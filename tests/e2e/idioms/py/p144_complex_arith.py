meta = {"name": "complex-arith", "description": "complex numbers: constructors, arithmetic with int and float, reprs"}
z = complex(1, -2)
w = complex("3+4j")
made = [complex(), complex(2), complex(2.5), complex(True), complex(0, 1), complex(-0.0, -0.0), complex(0, -0.0), complex(-0.0, 0),
        complex(" (1-2.5e3J) "), complex("-j"), complex("1e3"), complex("1+j"), complex("nan+infj"), complex(z), complex(z, z), complex(1e16, 1e-5), complex(2 ** 70)]
ops = [z + w, z - w, z * w, z / w, w / 2, 1 / complex(0, 1), 3 - complex(0, 1), 2.5 * complex(0, 1), z + 1, 1 + z, z * True,
       z ** 2, z ** -1, z ** 0, w ** 0.5, 2 ** complex(0, 1), complex(0, 1) ** complex(0, 1), complex(0, 0) ** 2, -z, +z, -complex(0, 0)]
attrs = [z.real, z.imag, z.conjugate(), abs(w), abs(complex(0, -2)), isinstance(z.real, float), isinstance(z, complex), isinstance(1, complex), isinstance(z, (int, float))]
eqs = [complex(3, 0) == 3, complex(3, 0) == 3.0, 3 == complex(3, 0), complex(3, 1) == 3, complex(1, 2) == complex(1.0, 2.0), z != w, complex(0, 0) == 0,
       bool(complex(0, 0)), bool(complex(0, 1)), bool(complex(-0.0, 0)), complex(0, 1) in [complex(0, 1)]]
hashes = [hash(complex(3, 0)) == hash(3), hash(complex(1, 2)), hash(complex(0, 1)), hash(complex(1.5, -2)), {complex(3, 0): "three"}[3], len({complex(1, 0), 1, 1.0})]
total = sum([complex(1, 1), 2, 0.5])
return {"made": [repr(m) for m in made], "ops": [repr(o) for o in ops], "attrs": [repr(a) for a in attrs], "eqs": eqs, "hashes": hashes,
        "total": repr(total), "str": [str(z), f"{w}", "%s" % z, str([z, w])]}
