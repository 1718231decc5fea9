meta = {"name": "p170", "description": "Malformed prompt-agent options are refused with bad_request (not retryable), as the seed's broker refuses them"}
not_a_schema = ["a"]
calls = [
    lambda: agent("Summarise", {"temperature": 0.2, "pkg": "x"}),
    lambda: agent("Summarise", {"notes": None}),
    lambda: agent("Summarise", label=5),
    lambda: agent("Summarise", {"model": 3}),
    lambda: agent("Summarise", effort=True),
    lambda: agent("Summarise", phase=["a"]),
    lambda: agent("Summarise", isolation=1.5),
    lambda: agent("Summarise", tools="Read"),
    lambda: agent("Summarise", tools=["Read", ""]),
    lambda: agent("Summarise", tools=["Read", 3]),
    lambda: agent("Summarise", context="ctx"),
    lambda: agent("Summarise", {"context": [1]}),
    lambda: agent("Summarise", schema=not_a_schema),
    lambda: agent("   "),
    lambda: agent(""),
    lambda: agent(42),
    lambda: agent("Summarise", "sum"),
    lambda: agent("Summarise", ["a"]),
    lambda: agent("Summarise", agentType=""),
    lambda: agent("Summarise", agentType="no-such-type"),
    lambda: agent("Summarise", {"label": None, "tools": ("Read",)}),
    lambda: agent("Ignored", {"prompt": "Summarise", "label": "named"}),
]
seen = []
for make in calls:
    try:
        r = await make()
        seen.append(f"ok {r}")
    except CapabilityError as e:
        seen.append(f"{e.code}/{e.retryable}: {e}")
    except TypeError as e:
        seen.append(f"TypeError: {e}")
return seen
