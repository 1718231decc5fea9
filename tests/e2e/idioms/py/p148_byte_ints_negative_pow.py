meta = {"name": "byte-ints-negative-pow", "description": "bytes searches by an int byte; a negative base to a fractional power is complex"}
raw = b"a1b1c1"
ba = bytearray(raw)
out = []
for f in [lambda: raw.count(49), lambda: raw.find(98), lambda: raw.index(99), lambda: raw.rfind(49), lambda: ba.count(ord("1")), lambda: ba.find(0x63, 2),
          lambda: raw.count(True), lambda: raw.find(300), lambda: raw.index(122),
          lambda: (-8) ** (1 / 3), lambda: (-2.0) ** 0.5, lambda: (-1) ** 0.5, lambda: (-8.0) ** 2.0, lambda: (-8) ** -1.5, lambda: 8 ** (1 / 3),
          lambda: abs((-4) ** 0.5), lambda: ((-27) ** (1 / 3)).real, lambda: isinstance((-1) ** 0.5, complex),
          lambda: ba.nope()]:
    try:
        out.append(repr(f()))
    except Exception as e:
        out.append("raised " + repr(e))
return out
