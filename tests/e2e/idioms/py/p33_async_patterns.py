meta = {"name": "async_patterns", "description": "await in loops and comprehensions, coroutines handed to parallel"}

topics = ["rust", "wasm", "python"]
sequential = [await agent(f"one-liner about {t}", label=f"fact:{t}") for t in topics]
facts = [f["text"] for f in sequential]

async def ask(t, style):
    r = await agent(f"{style} take on {t}", label=f"{style}:{t}")
    return r["text"]

coros = await parallel([lambda t=t: ask(t, "hot") for t in topics])
mixed = await parallel([lambda: ask("rust", "cold"), lambda: "plain value", lambda: 42])
nested = await parallel([lambda t=t: parallel([lambda: ask(t, "cold")]) for t in ["wasm"]])

async def safe(t):
    try:
        return await agent(f"fragile {t}", label=f"fragile:{t}")
    except CapabilityError as e:
        return {"error": e.code, "retryable": e.retryable}

guarded = await parallel([lambda t=t: safe(t) for t in topics])
pending = ask("python", "cold")
later = await pending
return {"facts": facts, "coros": coros, "mixed": mixed, "nested": nested, "guarded": [g.get("text", g.get("retryable")) for g in guarded], "later": later}
