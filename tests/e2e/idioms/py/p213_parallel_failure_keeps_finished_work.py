meta = {"name": "parallel_failure_keeps_finished_work", "description": "A parallel failure: branches that already finished keep their effects, the exception arrives as raised"}

done = []

async def tally(team, used):
    done.append(f"tally {team}")
    if used > 100:
        raise ValueError(team, used)
    return used

async def fetch(team):
    done.append(f"fetch {team}")
    r = await agent(f"Usage of team {team}", label="usage")
    done.append(f"fetched {team}")
    return r["used"]

try:
    await parallel([lambda: tally("a", 10), lambda: fetch("b"), lambda: tally("c", 150), lambda: 7, lambda: fetch("e")])
    err = None
except ValueError as e:
    err = [list(e.args), str(e)]
done.append("after")

# A branch that failed with a CapabilityError of its own making.
async def gate(stage):
    if stage == "prod":
        raise CapabilityError("prod is frozen", "frozen", False)
    return await fetch(stage)

try:
    await parallel([lambda s=s: gate(s) for s in ["dev", "prod", "qa"]])
except CapabilityError as e:
    err2 = [str(e), e.code, e.retryable]

ok = await parallel([lambda: tally("f", 1), lambda: fetch("g"), lambda: 3])
return {"err": err, "err2": err2, "done": done, "ok": ok}
