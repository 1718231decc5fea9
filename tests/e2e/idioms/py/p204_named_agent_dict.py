meta = {"name": "p204", "description": "A named agent's answer must be a dict, as the seed's _invoke requires: bad_output, with or without a schema"}
out = []
for label, schema in [("list", None), ("text", None), ("num", {"n": "int"}), ("dict", {"n": "int"})]:
    try:
        r = await agent("hermes." + label, {"q": label}, schema=schema)
        out.append(["ok", r])
    except CapabilityError as e:
        out.append([e.code, e.retryable, str(e)])
return out
