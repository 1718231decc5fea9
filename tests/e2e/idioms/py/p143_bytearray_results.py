meta = {"name": "bytearray-results", "description": "a bytearray logged, formatted and returned in the result"}
ba = bytearray(b"log\x00me")
log(ba)
log(bytearray())
log([ba, bytearray(b"'")])
log(f"{ba}|{ba!r}|{len(ba)}")
log("%s" % ba)
log(str(bytearray(b"q")))
return {"raw": ba, "nested": [bytearray(b"n")], "text": ba.decode("latin-1"), "in_tuple": (ba, 1), "keyed": {"k": {"b": bytearray(2)}}}
