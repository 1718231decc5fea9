meta = {"name": "records", "description": "dataclass-like dict records, defaults, merging, nested updates"}

def make_task(title, *, owner=None, tags=None, est=1.0, **extra):
    return {"title": title, "owner": owner, "tags": list(tags or []), "est": est, "done": False, **extra}

tasks = [make_task("write docs", owner="ana", tags=["docs"]), make_task("fix bug", est=2.5, severity="high"),
         make_task("release", owner="bo", tags=("ops", "ci"), est=0.5)]
tasks[1]["owner"] = "cy"
tasks[0].update(done=True, est=tasks[0]["est"] + 0.25)
for t in tasks:
    t.setdefault("severity", "normal")
defaults = {"retries": 3, "timeout": 30, "labels": []}
cfg = {**defaults, **{"timeout": 60}}
cfg2 = dict(defaults, retries=5)
cfg3 = defaults | {"labels": ["x"]}
merged = dict(sorted({**cfg, "z": 0, "a": -1}.items()))
state = {"phase": "init", "history": []}
for step in ["plan", "build", "test"]:
    state["history"].append(state["phase"])
    state["phase"] = step
snapshot = {k: (list(v) if isinstance(v, list) else v) for k, v in state.items()}
state["history"].clear()
deep = {"a": {"b": {"c": 1}}}
deep["a"]["b"]["d"] = deep["a"]["b"].pop("c") + 1
popped = [cfg.pop("retries"), cfg.pop("missing", "default"), len(cfg)]
last_item = dict(merged).popitem()
keys_order = list({"b": 1, "a": 2, "c": 3})
fromkeys = dict.fromkeys(["x", "y"], 0)
copy = dict(tasks[0])
copy["tags"].append("shared")
eq = [{"a": 1, "b": 2} == {"b": 2, "a": 1}, [1, 2] == [2, 1], (1, [2]) == (1, [2])]
get_chain = tasks[1].get("meta", {}).get("x", "n/a")
by_owner = {t["owner"]: t["title"] for t in tasks}
total = sum(t["est"] for t in tasks if not t["done"])
return {"tasks": tasks, "cfg": cfg, "cfg2": cfg2, "cfg3": cfg3, "merged": merged, "snapshot": snapshot, "state": state,
        "deep": deep, "popped": popped, "last_item": last_item, "keys_order": keys_order, "fromkeys": fromkeys,
        "eq": eq, "get_chain": get_chain, "by_owner": by_owner, "total": total, "in": ["owner" in tasks[0], "x" not in tasks[0]],
        "views": [list(defaults.values()), len(defaults.items()), sorted(defaults)], "rev": list(reversed({"p": 1, "q": 2}))}
