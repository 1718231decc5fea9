meta = {
    "name": "float_underscores",
    "description": "Parse agent-reported amounts written with digit separators",
    "phases": ["parse"],
}

phase("parse")
amounts = (await agent("Report the quarterly amounts", label="amounts"))["amounts"]
parsed, rejected = {}, {}
for name, text in amounts.items():
    try:
        parsed[name] = float(text)
    except ValueError as e:
        rejected[name] = str(e)
total = sum(parsed.values())
log(f"total {total:,.2f} from {len(parsed)} amounts, {len(rejected)} rejected")
return {"parsed": parsed, "rejected": rejected, "total": total}
