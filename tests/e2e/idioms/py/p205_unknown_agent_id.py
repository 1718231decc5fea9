meta = {"name": "p205", "description": "An agent id no one serves is the seed's unknown_agent, not retryable; a known agent's failure is runner_error, retryable"}
out = {}
try:
    await agent("hermes.nobody", {"q": 1})
except CapabilityError as e:
    out["unknown"] = [e.code, e.retryable, str(e)]
try:
    await agent("hermes.flaky", {"q": 2})
except CapabilityError as e:
    out["runner"] = [e.code, e.retryable, str(e)]
out["ok"] = await agent("hermes.flaky", {"q": 3})
return out
