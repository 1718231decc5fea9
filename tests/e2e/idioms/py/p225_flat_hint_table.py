meta = {"name": "b04", "description": "legacy flat hints: aliases, unknown words and nested dicts"}
cases = [
    ["null_hint", {"x": "null"}, {"x": 5}],
    ["any_hint", {"x": "any"}, {"x": True}],
    ["float_int", {"x": "float"}, {"x": 3}],
    ["Float_str", {"x": "Float"}, {"x": "s"}],
    ["dict_hint", {"x": "dict"}, {"x": [1]}],
    ["list_hint", {"x": "list"}, {"x": {}}],
    ["array_hint", {"x": "ARRAY"}, {"x": "no"}],
    ["boolean_int", {"x": "boolean"}, {"x": 1}],
    ["nested_dict_hint", {"a": {"type": "string"}}, {"a": 5}],
    ["nested_dict_missing", {"a": {"type": "string"}}, {"b": 5}],
    ["list_value_hint", {"a": ["string"]}, {"a": 5}],
    ["int_hint_value", {"a": 3}, {"a": "x"}],
    ["none_hint", {"a": None}, {"a": "x"}],
    ["required_named_field", {"required": "str", "n": "int"}, {"required": "r", "n": 1}],
    ["type_field_subset_word", {"type": "string"}, {"type": "bug"}],
    ["object_root_extra", {"type": "object"}, {"anything": 1}],
]
out = []
for name, schema, answer in cases:
    try:
        r = await agent(f"case {name}", label=name, schema=schema, context={"answer": answer})
        out.append([name, "ok"])
    except CapabilityError as e:
        out.append([name, e.code, str(e)])
return out
