meta = {"name": "aggregation", "description": "group, count and rank results like a triage report"}

issues = [
    {"id": 101, "repo": "api", "labels": ["bug", "p1"], "hours": 3.5, "owner": "ana"},
    {"id": 102, "repo": "web", "labels": ["feature"], "hours": 8, "owner": "bo"},
    {"id": 103, "repo": "api", "labels": ["bug"], "hours": 1.25, "owner": "bo"},
    {"id": 104, "repo": "cli", "labels": [], "hours": 0, "owner": None},
    {"id": 105, "repo": "web", "labels": ["bug", "p1", "ux"], "hours": 5, "owner": "ana"},
    {"id": 106, "repo": "api", "labels": ["p2"], "hours": 2, "owner": "cy"},
]
by_repo = {}
for it in issues:
    by_repo.setdefault(it["repo"], []).append(it["id"])
label_counts = {}
for it in issues:
    for lab in it["labels"]:
        label_counts[lab] = label_counts.get(lab, 0) + 1
ranked = sorted(label_counts.items(), key=lambda kv: (-kv[1], kv[0]))
hours = {}
for it in issues:
    hours[it["owner"] or "unassigned"] = hours.get(it["owner"] or "unassigned", 0) + it["hours"]
top_owner = max(hours, key=hours.get)
avg = sum(i["hours"] for i in issues) / len(issues)
buckets = {"small": [], "medium": [], "large": []}
for it in issues:
    size = "small" if it["hours"] < 2 else "medium" if it["hours"] < 5 else "large"
    buckets[size].append(it["id"])
bugs = [i["id"] for i in issues if "bug" in i["labels"]]
p1_share = round(len([i for i in issues if "p1" in i["labels"]]) / len(issues), 3)
per_repo_hours = {r: sum(i["hours"] for i in issues if i["repo"] == r) for r in sorted(by_repo)}
owners = sorted({i["owner"] for i in issues if i["owner"]})
first_big = next((i["id"] for i in issues if i["hours"] > 4), None)
none_big = next((i["id"] for i in issues if i["hours"] > 40), "none")
matrix = [[i["id"], len(i["labels"])] for i in sorted(issues, key=lambda i: (len(i["labels"]), -i["id"]), reverse=True)]
lines = [f"{repo}: {len(ids)} ({', '.join(str(x) for x in ids)})" for repo, ids in by_repo.items()]
return {
    "by_repo": by_repo, "ranked": ranked, "hours": hours, "top_owner": top_owner,
    "avg": avg, "avg_r": round(avg, 2), "buckets": buckets, "bugs": bugs, "p1_share": p1_share,
    "per_repo_hours": per_repo_hours, "owners": owners, "first_big": first_big, "none_big": none_big,
    "matrix": matrix, "lines": lines, "min_max": [min(hours.values()), max(hours.values())],
    "divmod": divmod(sum(int(i["hours"] * 60) for i in issues), 60),
}
