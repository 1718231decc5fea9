meta = {"name": "p189", "description": "A schema built at run time on a legacy hermes agent: a flat one with an unknown word runs, a malformed one is the seed's schema refusal with its text"}
out = {}
flat = {"summary": "text", "n": "Int"}
out["flat"] = await agent("hermes.summarize", {"doc": "a"}, schema=flat)
for schema in [{"type": "object", "format": "x"}, {"type": "dict"}, {"required": ["a"], "items": []}]:
    try:
        await agent("hermes.summarize", {"doc": "b"}, schema=schema)
        out.setdefault("bad", []).append("accepted")
    except CapabilityError as e:
        out.setdefault("bad", []).append([e.code, e.retryable, str(e)])
out["none"] = await agent("hermes.summarize", {"doc": "c"}, schema={})
return out
