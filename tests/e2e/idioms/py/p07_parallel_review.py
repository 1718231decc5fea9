meta = {
    "name": "parallel_review",
    "description": "review files in parallel then verify findings in a pipeline",
    "phases": [{"title": "review"}, {"title": "verify"}],
}

files = args.get("files", ["a.py", "b.py", "c.py"])
phase("review")

async def review(path):
    return await agent(f"Review {path} for bugs", {"label": f"review:{path}", "phase": "review"},
                       schema={"findings": "list"})

reviews = await parallel([lambda p=p: review(p) for p in files])
findings = [dict(f, file=files[i]) for i, r in enumerate(reviews) for f in r["findings"]]
log(f"{len(findings)} findings across {len(files)} files")
phase("verify")

async def verify(finding):
    v = await agent(f"Verify: {finding['title']}", label=f"verify:{finding['id']}", schema={"real": "bool"})
    return {**finding, "real": v["real"]}

def severity(prev, item, index):
    return {**prev, "rank": index, "sev": "high" if "crash" in item["title"] else "low"}

verified = await pipeline(findings, verify, severity)
confirmed = [f for f in verified if f["real"]]
summary = {f["file"]: sum(1 for g in confirmed if g["file"] == f["file"]) for f in confirmed}
return {"confirmed": sorted(confirmed, key=lambda f: f["id"]), "summary": summary, "total": len(verified)}
