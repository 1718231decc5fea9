meta = {"name": "async_generator_stream", "description": "stream agent answers through an async generator"}

topics = args.get("topics", ["alpha", "beta", "gamma"])

async def answers(items):
    for t in items:
        r = await agent(f"Summarize {t}", label=f"sum:{t}")
        yield t, r["text"]

collected = []
async for topic, text in answers(topics):
    collected.append(f"{topic}: {text}")
    log(f"got {topic}")

lengths = [len(text) async for _, text in answers(topics)]
upper = {t: s.upper() async for t, s in answers(topics[:2])}

async def countdown(n):
    while n > 0:
        yield n
        n -= 1

ticks = [x async for x in countdown(4) if x % 2 == 0]
return {"collected": collected, "lengths": lengths, "upper": upper, "ticks": ticks}
