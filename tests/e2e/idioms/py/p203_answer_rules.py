meta = {"name": "p203", "description": "The seed broker's answer rules: a prompt agent gets 3 attempts, 4.0 is no integer, any non-dict answer is refused; a legacy agent's output is checked once"}
out = {}
try:
    await agent("count it", label="n", schema={"n": "int"})
except CapabilityError as e:
    out["three"] = [e.code, str(e)]
out["second"] = await agent("count again", label="m", schema={"n": "int"})
try:
    await agent("hermes.counter", {}, schema={"n": "int"})
except CapabilityError as e:
    out["legacy"] = [e.code, str(e)]
try:
    await agent("list it", label="l", schema={"type": "array"})
except CapabilityError as e:
    out["list"] = [e.code, str(e)]
return out
