meta = {"name": "p176", "description": "A kanban.* id through agent() is refused (reserved_agent), as the seed keeps those ids for kanban_agent"}
out = []
for target in ["kanban.triage", "kanban.x.y"]:
    try:
        out.append(await agent(target, {"a": 1}))
    except CapabilityError as e:
        out.append(f"{e.code}/{e.retryable}: {e}")
out.append(await agent("hermes.greeter", {"name": "x"}))
return out
