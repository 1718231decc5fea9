meta = {"name": "b05", "description": "schema-subset refusals as the script sees them"}
cases = [
    ["upper_int", {"n": "INT"}, "o_float"],
    ["title_str", {"s": "Str"}, "o_int_s"],
    ["enum_miss", {"type": "object", "properties": {"v": {"enum": ["a", "b"]}}}, "o_c"],
    ["addl_false", {"type": "object", "properties": {"a": {}}, "additionalProperties": False}, "o_extra"],
    ["int_bool", {"n": "int"}, "o_true_n"],
    ["num_bool", {"n": "number"}, "o_true_n"],
    ["items_req", {"type": "object", "properties": {"xs": {"type": "array", "items": {"type": "object", "required": ["id"]}}}}, "o_xs"],
    ["typeless_props", {"properties": {"a": {"type": "string"}}}, "o_a_int"],
    ["typeless_required", {"required": ["a"]}, "o_empty"],
    ["null_type", {"type": "object", "properties": {"a": {"type": "null"}}}, "o_a_zero"],
    ["nested_missing", {"type": "object", "properties": {"a": {"type": "object", "required": ["b"]}}}, "o_a_empty"],
    ["field_named_required", {"required": "bool"}, "o_required_str"],
    ["unknown_hint", {"n": "double"}, "o_float"],
    ["enum_int_float", {"type": "object", "properties": {"v": {"enum": [1]}}}, "o_v_float"],
    ["array_no_items", {"type": "object", "properties": {"xs": {"type": "array"}}}, "o_xs"],
    ["object_in_enum", {"type": "object", "properties": {"v": {"enum": [{"a": 1}]}}}, "o_v_obj"],
]
out = []
for name, schema, lab in cases:
    try:
        r = await agent(f"case {name}", label=lab, schema=schema)
        out.append([name, "ok", r])
    except CapabilityError as e:
        out.append([name, e.code, e.retryable, str(e)])
return out
