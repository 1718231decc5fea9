meta = {"name": "int_bytes_unicode_digits", "description": "int.to_bytes / int.from_bytes and int()/float() of Unicode digits and whitespace, as CPython"}

# Permission flags packed into a fixed-width header and read back.
READ, WRITE, EXEC, ADMIN = 1, 2, 4, 1 << 12
flags = READ | WRITE | ADMIN
header = flags.to_bytes(2, "big")
little = flags.to_bytes(4, byteorder="little")
back = int.from_bytes(header, "big")
packed = {
    "header": list(header), "little": list(little), "back": back, "has_admin": bool(back & ADMIN),
    "default": list((7).to_bytes()), "empty": list((0).to_bytes(0)), "true": list(True.to_bytes(1, "big")),
    "signed": [list((-1).to_bytes(2, "big", signed=True)), list((-129).to_bytes(2, "little", signed=True)),
               list((127).to_bytes(1, signed=True))],
    "from": [int.from_bytes(b"\x01\x00"), int.from_bytes(b"\x01\x00", "little"), int.from_bytes([255, 254], "big", signed=True),
             int.from_bytes((1, 2, 3), byteorder="little"), int.from_bytes(b"", "big"), int.from_bytes(b"\x80", signed=True),
             int.from_bytes(b"\xff" * 9, "big"), int.from_bytes(bytes=b"\x02")],
    "big": [list((2 ** 70).to_bytes(10, "little")), list((-(2 ** 70)).to_bytes(10, "big", signed=True)),
            int.from_bytes((2 ** 70 + 5).to_bytes(9, "big"), "big") == 2 ** 70 + 5],
    "wide_bits": [(2 ** 70).bit_length(), (-(2 ** 70) - 1).bit_length(), (2 ** 70 + 7).bit_count(), (-(2 ** 65) + 1).bit_count()],
    "roundtrip": [int.from_bytes(n.to_bytes(8, "big", signed=True), "big", signed=True) for n in [0, 1, -1, 2 ** 62, -(2 ** 63)]],
}

# Counts typed with other scripts' digits (form input, OCR, full-width keyboards).
raw = ["٣٤", "１２", "\u3000 ４２\u00a0", "۱۲۳", "९", "-٥", "+１_０", "  7\u2003"]
ints = [int(s) for s in raw]
floats = [float("٣.٥"), float("１２.５"), float("\u2009-٢e٢\u2009"), float("\u00a01.25\u3000")]
based = [int("１f", 16), int("٠x١٠", 0)]

errs = []
for call in [lambda: (256).to_bytes(1, "big"), lambda: (-1).to_bytes(1, "big"), lambda: (1).to_bytes(-1),
             lambda: (5).to_bytes(2, "middle"), lambda: (5).to_bytes(2, 5), lambda: (5).to_bytes(2, "big", True),
             lambda: (5).to_bytes(2, "big", foo=1), lambda: (5).to_bytes("a"), lambda: (128).to_bytes(1, signed=True),
             lambda: (1).to_bytes(0), lambda: (2 ** 70).to_bytes(2), lambda: int.from_bytes("ab"), lambda: int.from_bytes(5),
             lambda: int.from_bytes([256]), lambda: int.from_bytes(), lambda: int.from_bytes(b"\x01", "x"),
             lambda: int.from_bytes(b"a", "big", 1), lambda: (5).to_bytes(2, length=2), lambda: int.from_bytes(b"a", x=1),
             lambda: int.from_bytes(b"a", bytes=b"b"), lambda: (5).to_bytes(2, "big", signed=None), lambda: int("٣x"), lambda: int("१२a"), lambda: float("٣,٥"),
             lambda: int("\u2003"), lambda: int("½")]:
    try:
        errs.append(repr(call()))
    except (ValueError, TypeError, OverflowError) as exc:
        errs.append(str(exc))
return {"packed": packed, "ints": ints, "floats": floats, "based": based, "errors": errs}
