meta = {"name": "release_notes", "description": "draft release notes from agent summaries"}

changes = await agent("hermes.changelog", {"since": args["since"]}, label="changes", schema={"entries": "list"})
notes = []
for i, item in enumerate(sorted(changes["entries"], key=lambda c: (c["type"], c["title"].lower())), start=1):
    scope = f"({item['scope']})" if item.get("scope") else ""
    notes.append(f"{i}. **{item['type']}**{scope}: {item['title'].strip().rstrip('.')}")
summary = await agent("hermes.summarize", {"notes": notes}, label="summary")
header = f"# Release {args['version']}\n"
counts = {}
for item in changes["entries"]:
    counts[item["type"]] = counts.get(item["type"], 0) + 1
table = "\n".join(f"| {k:<6} | {v:>3} |" for k, v in sorted(counts.items()))
body = header + "\n".join(notes) + "\n\n" + table + "\n\n" + summary["text"]
word_count = len(body.split())
return {"body": body, "word_count": word_count, "lines": body.count("\n") + 1, "first_line": body.splitlines()[0]}
