meta = {"name": "agent_options", "description": "agent() with options as keywords and as a dict, None options, repeated prompts and legacy ids",
        "phases": [{"title": "design", "detail": "plan"}, {"title": "build"}]}

phase("design")
plan = await agent("Plan the change", {"label": "plan", "phase": "design", "model": "opus", "effort": "high"})
again = await agent("Plan the change", {"label": "plan", "phase": "design", "model": "opus", "effort": "high"})
phase("build")
impl = await agent("Implement step 1", label="impl", context={"ticket": "T-9"}, schema={"diff": "string"}, tools=None, isolation=None)
no_ctx = await agent("Implement step 2", label="impl")
hi = await agent("Say hi")
opts = {"label": "impl", "context": {"ticket": "T-9"}}
from_dict = await agent("Implement step 3", opts)
legacy = await agent("hermes.legacy", {"x": 1}, label="legacy-call")
legacy2 = await agent("hermes.legacy", {"x": 2})
return {
    "plan": plan["steps"], "same": again == plan, "impl": impl["diff"], "no_ctx": no_ctx["diff"],
    "hi": hi["text"], "from_dict": from_dict["diff"], "legacy": [legacy["legacy"], legacy2["legacy"]],
    "spent": budget.spent(), "opts_after": opts,
}
