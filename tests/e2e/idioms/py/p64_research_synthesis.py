meta = {
    "name": "research_synthesis",
    "description": "Plan questions, research them in parallel, critique, and write a report",
    "phases": [{"title": "plan"}, {"title": "research"}, {"title": "critique"}, {"title": "write"}],
}

def parse_json_text(text):
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    try:
        return json.loads(body)
    except json.JSONDecodeError as e:
        log(f"could not parse agent JSON at line {e.lineno} col {e.colno}: {e.msg}")
        return None

topic = args.get("topic", "tooling")
phase("plan")
plan = parse_json_text((await agent(f"Plan research questions about {topic}. Reply as JSON.", label="plan"))["text"])
questions = plan["questions"][: args.get("max_questions", 5)]
log(f"{len(questions)} questions, depth {plan.get('depth', 1)}")

phase("research")

async def research(q):
    try:
        res = await agent(f"Research: {q}", label="research")
    except CapabilityError as e:
        return {"q": q, "ok": False, "why": e.code, "retry": e.retryable}
    text, _, sources = res["text"].partition("\nSources: ")
    return {"q": q, "ok": True, "answer": text, "sources": [s.strip() for s in sources.split(",") if s.strip()], "conf": res.get("confidence", 0)}

findings = await parallel([lambda q=q: research(q) for q in questions])
answered = [f for f in findings if f["ok"]]
all_sources = sorted({s for f in answered for s in f["sources"]})
weak = [f["q"] for f in answered if f["conf"] < 0.6]

phase("critique")
crit = parse_json_text((await agent("Critique: " + json.dumps(answered, sort_keys=True), label="critique"))["text"])

phase("write")
outline = "\n".join(f"- {f['q']} ({f['conf']:.0%})" for f in answered)
report = await agent(f"Write the report from:\n{outline}\nGaps: {', '.join(crit['gaps'])}", label="write")
title = report["text"].splitlines()[0].lstrip("#").strip()
return {
    "questions": questions,
    "answered": len(answered),
    "failed": [(f["q"], f["why"], f["retry"]) for f in findings if not f["ok"]],
    "sources": all_sources,
    "weak": weak,
    "score": crit["score"],
    "title": title,
    "outline": outline,
    "words": len(report["text"].split()),
}
