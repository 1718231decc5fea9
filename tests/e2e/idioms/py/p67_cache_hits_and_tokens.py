meta = {"name": "cache_hits_and_tokens", "description": "ask the same question twice and report what the budget saw"}

first = await agent("summarise the incident report", label="summary")
again = await agent("summarise the incident report", label="summary")
other = await agent("list the follow-ups", label="followups")
spent = budget.spent()
log(f"spent {spent} tokens on 3 calls")
return {
    "same_answer": first == again,
    "summary": again,
    "followups": other["items"],
    "spent": spent,
}
