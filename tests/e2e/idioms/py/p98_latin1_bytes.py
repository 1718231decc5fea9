meta = {"name": "latin1_bytes", "description": "encode legacy payloads as latin-1 or ascii with error handlers, and build bytes from ints"}

samples = ["café", "naïve – résumé ✓", "plain", "Ωmega", "ÿ\x80\x00", ""]
rows = []
for s in samples:
    row = {"text": s}
    for enc in ["latin-1", "latin1", "iso-8859-1", "L1", "ascii"]:
        for errors in ["strict", "replace", "ignore", "backslashreplace", "xmlcharrefreplace"]:
            try:
                row[f"{enc}/{errors}"] = s.encode(enc, errors=errors).hex(" ")
            except UnicodeEncodeError as e:
                row[f"{enc}/{errors}"] = ["UnicodeEncodeError", str(e), e.start, e.end, e.reason]
    rows.append(row)

payload = bytes([99, 97, 102, 233, 0, 255, 128])
decoded = {}
for enc in ["latin-1", "ascii", "utf-8"]:
    for errors in ["strict", "replace", "ignore", "backslashreplace"]:
        try:
            decoded[f"{enc}/{errors}"] = payload.decode(enc, errors)
        except UnicodeDecodeError as e:
            decoded[f"{enc}/{errors}"] = ["UnicodeDecodeError", str(e)]
roundtrip = all(bytes(range(256)).decode("latin-1").encode("latin-1") == bytes(range(256)) for _ in range(2))
built = [list(bytes([104, 105])), bytes(range(65, 70)).decode("ascii"), bytes((x * 2 for x in range(5))).hex(), bytes([]), bytes((1, 2)) + b"!"]
bad = []
for f in [lambda: bytes([256]), lambda: bytes([-1]), lambda: bytes(["a"]), lambda: bytes(1.5), lambda: "x".encode("latin-9")]:
    try:
        f()
        bad.append("ok")
    except (ValueError, TypeError, LookupError) as e:
        bad.append([isinstance(e, ValueError), isinstance(e, TypeError), isinstance(e, LookupError), str(e)])
log(f"{len(rows)} samples, roundtrip={roundtrip}")
return {"rows": rows, "decoded": decoded, "roundtrip": roundtrip, "built": [repr(b) if isinstance(b, bytes) else b for b in built], "bad": bad}
