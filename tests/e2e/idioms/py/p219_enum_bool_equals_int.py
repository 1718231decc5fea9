meta = {"name": "m04", "description": "the seed's enum check is Python's `in`: True equals 1"}
schema = {"type": "object", "properties": {"v": {"enum": [1, "x"]}, "w": {"enum": [0.0]}}}
try:
    r = await agent("classify", label="c", schema=schema)
except CapabilityError as e:
    r = [e.code, str(e)]
return r
