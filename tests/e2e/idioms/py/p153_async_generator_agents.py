meta = {"name": "async_generator_agents", "description": "async generators that call agent and parallel, nested async generators, and async generators run inside parallel branches"}

topics = args.get("topics", ["alpha", "beta", "gamma"])

async def summaries(items):
    for t in items:
        r = await agent(f"Summarize {t}", label=f"sum:{t}")
        log(f"summarized {t}")
        yield t, r["text"]

async def reviewed(items):
    # one async generator consuming another, each step awaiting an agent
    async for t, text in summaries(items):
        verdict = await agent(f"Review {text}", label=f"rev:{t}")
        yield {"topic": t, "summary": text, "ok": verdict["ok"]}

async def batches(items, size):
    for i in range(0, len(items), size):
        chunk = items[i:i + size]
        answers = await parallel([lambda t=t: agent(f"Summarize {t}", label=f"sum:{t}") for t in chunk])
        yield [a["text"] for a in answers]

out = {}
out["reviewed"] = [r async for r in reviewed(topics)]
out["batches"] = [b async for b in batches(topics, 2)]

async def collect(t):
    return [text async for _, text in summaries([t, t])]

out["in_parallel"] = await parallel([lambda t=t: collect(t) for t in topics[:2]])

async def helper(t):
    r = await agent(f"Review {t}", label=f"rev:{t}")
    return r["ok"]

async def via_coroutine(items):
    for t in items:
        ok = await helper(t)
        yield f"{t}={ok}"

out["via_coroutine"] = [s async for s in via_coroutine(topics)]
log("done")
return out
