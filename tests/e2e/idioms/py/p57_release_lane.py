meta = {
    "name": "release_lane",
    "description": "Pick the next version from tags and commits, draft notes, wait for CI",
    "phases": ["inventory", "version", "notes", "ci"],
}

phase("inventory")
tags = (await agent("hermes.git.tags", {"repo": args["repo"]}))["tags"]
commits = (await agent("hermes.git.log", {"repo": args["repo"], "since": "last-tag"}))["commits"]

def parse(tag):
    if not tag.startswith("v"):
        return None
    core, _, pre = tag[1:].partition("-")
    parts = core.split(".")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        return None
    return (tuple(int(p) for p in parts), pre)

versions = [(parse(t), t) for t in tags]
stable = sorted((v[0], t) for v, t in [(p, t) for p, t in versions if p] if not v[1])
latest = stable[-1][0]
log(f"latest stable {'.'.join(map(str, latest))} of {len(tags)} tags")

phase("version")
kinds = {"feat": 0, "fix": 0, "other": 0}
breaking = False
for c in commits:
    head, sep, _ = c.partition(":")
    breaking = breaking or head.endswith("!")
    kind = head.rstrip("!").split("(")[0]
    kinds[kind if kind in kinds else "other"] += 1
major, minor, patch = latest
if breaking:
    nxt = (major + 1, 0, 0)
elif kinds["feat"]:
    nxt = (major, minor + 1, 0)
else:
    nxt = (major, minor, patch + 1)
version = "v%d.%d.%d" % nxt
build = f"{nxt[0]:02d}{nxt[1]:03d}{nxt[2]:03d}"

phase("notes")
sections = {}
for c in commits:
    head, _, text = c.partition(": ")
    scope = head[head.find("(") + 1:head.find(")")] if "(" in head else "-"
    sections.setdefault(head.rstrip("!").split("(")[0], []).append(f"{text} [{scope}]")
body = "\n".join(f"## {k.upper()}\n" + "\n".join(f"- {line}" for line in v) for k, v in sorted(sections.items()))
notes = await agent(f"Polish these notes for {version}:\n{body}", label="notes")

phase("ci")
polls = []
status = None
for attempt in range(1, 6):
    ci = await agent(f"Check CI for {version} (poll {attempt})", label="ci")
    status = ci["status"]
    polls.append(status)
    if status == "green":
        mins, secs = divmod(int(ci["duration_s"]), 60)
        duration = f"{mins}m{secs:02d}s"
        break
else:
    duration = None
return {"tags_sorted": [t for _, t in stable], "latest": list(latest), "kinds": kinds, "breaking": breaking, "version": version,
        "build": build, "body": body, "notes": notes["text"], "polls": polls, "duration": duration}
