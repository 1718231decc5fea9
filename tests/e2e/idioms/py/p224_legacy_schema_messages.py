meta = {"name": "b02", "description": "a legacy agent's output checked once against a runtime schema"}
cases = [
    ["enum_miss", {"type": "object", "properties": {"v": {"enum": ["a", "b"]}}}],
    ["addl_false", {"type": "object", "properties": {"v": {}}, "additionalProperties": False}],
    ["upper_int", {"v": "INT"}],
    ["bool_for_num", {"w": "number"}],
    ["list_schema_ignored", ["v"]],
    ["str_schema_ignored", "v"],
    ["empty_schema", {}],
]
out = []
for name, schema in cases:
    try:
        r = await agent("hermes.judge", {"case": name}, schema=schema)
        out.append([name, "ok", r])
    except CapabilityError as e:
        out.append([name, e.code, e.retryable, str(e)])
return out
