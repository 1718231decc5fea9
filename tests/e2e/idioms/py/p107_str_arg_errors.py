meta = {
    "name": "str_arg_errors",
    "description": "Template filling where an agent returns numbers or null: str methods raise CPython's TypeError texts, which the script logs",
    "phases": ["fill"],
}

phase("fill")
fields = (await agent("Fill the release template fields", label="fields"))["fields"]
template = "Release {version} by {owner} -- {summary}"
text, problems = template, []
for key, value in fields.items():
    try:
        text = text.replace("{" + key + "}", value)
    except TypeError as e:
        problems.append(f"{key}: {e}")
        text = text.replace("{" + key + "}", str(value))
checks = []
for name, thunk in [
    ("find", lambda: text.find(fields["version"])),
    ("count", lambda: text.count(fields["owner"])),
    ("split", lambda: text.split(fields["version"])),
    ("strip", lambda: text.strip(fields["version"])),
    ("partition", lambda: text.partition(fields["owner"])),
    ("removeprefix", lambda: text.removeprefix(fields["owner"])),
    ("removesuffix", lambda: text.removesuffix(fields["summary"])),
    ("ljust", lambda: text.ljust(60, fields["version"])),
    ("replace_new", lambda: text.replace("Release", fields["summary"])),
]:
    try:
        checks.append([name, "ok", str(thunk())[:20]])
    except TypeError as e:
        checks.append([name, "TypeError", str(e)])
for p in problems:
    log(p)
return {"text": text, "problems": problems, "checks": checks}
