meta = {
    "name": "meta-literal-keys",
    "description": "meta is read as ast.literal_eval reads it: keys that are not strings, tuples, signed and big numbers",
    1: "one",
    2.5: "two and a half",
    None: "nothing",
    True: "yes",
    "limits": (1, 2),
    "offset": -3,
    "scale": +1.5,
    "huge": 123456789012345678901234567890,
    "phases": [{"title": "Collect", "id": "collect"}, "Report"],
}
out = []
out.append(meta[1])
out.append(meta[2.5])
out.append(meta[None])
out.append(meta[True])
out.append(meta["limits"])
out.append(meta["offset"] + meta["scale"])
out.append(meta["huge"] % 1000)
out.append([repr(k) for k in meta if not isinstance(k, str)])
out.append(len(meta))
phase("Collect")
return out
