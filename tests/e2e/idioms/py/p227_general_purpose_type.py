meta = {"name": "e01", "description": "the built-in general-purpose agentType"}
out = []
for make in [lambda: agent("Summarise the notes", agentType="general-purpose"),
             lambda: agent("Summarise the notes"),
             lambda: agent("Summarise the notes", {"agentType": "general-purpose"}),
             lambda: agent("Summarise the notes", agentType="General-Purpose"),
             lambda: agent("Summarise the notes", agentType="Explore")]:
    try:
        out.append(await make())
    except CapabilityError as e:
        out.append([e.code, str(e)])
return out
