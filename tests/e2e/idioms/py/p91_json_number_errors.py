meta = {"name": "json_number_errors", "description": "parse agent replies with malformed numbers"}
seen = []
for text in ['{"a": 01}', '[01]', '01', '[1, 02]', '-01', '{"a": 1.}', '[1e]', '[-]', '[1.5e+3, 2]', '{"n": -0.5}', '[1.e5]', '[0x10]']:
    try:
        seen.append(["ok", json.loads(text)])
    except json.JSONDecodeError as e:
        seen.append([e.msg, e.pos, e.lineno, e.colno, str(e)])
return seen
