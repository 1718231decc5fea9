meta = {"name": "concat_errors", "description": "build payloads by concatenation and report the type mistakes"}

payload = b"hdr:"
parts = (1, 2)
checks = {
    "bytes+str": lambda: payload + "body",
    "bytes+int": lambda: payload + 7,
    "bytes+none": lambda: payload + None,
    "bytes+list": lambda: payload + [1],
    "tuple+int": lambda: parts + 3,
    "tuple+list": lambda: parts + [3],
    "str+bytes": lambda: "x" + payload,
    "list+tuple": lambda: [1] + parts,
    "ok": lambda: [payload + b"ok", parts + (3,)],
}
out = {}
for name, f in checks.items():
    try:
        out[name] = ["ok", repr(f())]
    except TypeError as e:
        out[name] = ["TypeError", str(e)]
acc = b""
try:
    acc += "text"
except TypeError as e:
    out["iadd bytes"] = str(e)
t = ()
try:
    t += [1]
except TypeError as e:
    out["iadd tuple"] = str(e)
log(out["bytes+str"][1])
return out
