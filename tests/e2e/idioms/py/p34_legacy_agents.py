meta = {"name": "legacy_agents", "description": "hermes.* agent ids with input dicts, as the seed's examples use"}

greeting = await agent("hermes.greeter", {"subject": args.get("who", "world")})
up = await agent("hermes.uppercaser", {"text": greeting["greeting"]})
summary = await agent("hermes.summarizer", {"text": up["result"] * 3})
labels = await parallel([lambda t=t: agent("hermes.classifier", {"text": t}) for t in ["a", "b"]])
echo = await agent("hermes.echo", {"payload": [1, 2, {"k": "v"}]})
noop = await agent("hermes.noop")
return {"greeting": greeting, "up": up, "summary": summary, "labels": labels, "echo": echo["echo"], "noop": noop}
