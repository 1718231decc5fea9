meta = {"name": "a02", "description": "legacy agent ids and what input reaches the runner"}
out = []
out.append(await agent("hermes.echo", {"k": 1}))
out.append(await agent("hermes.echo", "k"))
out.append(await agent("hermes.echo"))
out.append(await agent("hermes.echo", None, label="L", model="m"))
out.append(await agent("hermes.echo", [1, 2]))
out.append(await agent("hermes.echo", {"k": 1, "schema": {"x": "int"}}))
out.append(await agent("hermes. echo", {"label": "spaced"}))
out.append(await agent("hermes.", {"label": "bare"}))
return out
