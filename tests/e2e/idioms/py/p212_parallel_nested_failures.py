meta = {"name": "parallel_nested_failures", "description": "A branch that handles its own failure cancels nothing; a failing inner parallel caught in its branch leaves the outer one running"}

trace = []

async def check(kind, i, note=True):
    r = await agent(f"Check {kind} {i}", label=kind)
    if note:
        trace.append(f"{kind} {i} ok")
    return r["v"]

async def guarded():
    # The branch catches its own failure: the siblings go on.
    try:
        await agent("Flaky lookup", label="flaky")
    except CapabilityError:
        trace.append("flaky handled")
    return "fallback"

first = await parallel([lambda: check("lint", 1, False), guarded, lambda: check("lint", 2, False)])
trace.append(f"first {first}")

def validate(target):
    trace.append(f"validate {target}")
    if not target.startswith("svc-"):
        raise ValueError(f"bad target {target}")
    return check("deploy", target)

# A failing inner parallel caught inside its branch: the outer one goes on.
async def shielded():
    try:
        await parallel([lambda: validate("svc-a"), lambda: validate("db"), lambda: validate("svc-b")])
    except ValueError as e:
        trace.append(f"shielded caught {e}")
    return "shielded"

second = await parallel([shielded, lambda: "plain"])
third = await check("lint", 3)
trace.append(f"second {second}")
return trace
