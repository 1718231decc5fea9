meta = {"name": "json_error_texts", "description": "agent replies that are not JSON: the error a script logs"}
replies = ["this is not json", "no", "fine, here it is", "nan", '{"ok": tru}', '{"verdict"', '{"a": 1,', "[1, 2.", "1.", "-"]
out = []
for text in replies:
    try:
        out.append(["ok", json.loads(text)])
    except json.JSONDecodeError as e:
        out.append([str(e), e.msg, e.pos, e.lineno, e.colno])
return out
