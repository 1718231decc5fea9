meta = {"name": "json_control_bom", "description": "json.loads texts for raw control characters in strings and a leading BOM, as LLM output has them"}

texts = [
    '{"summary": "line one\nline two"}',
    '"\t"',
    '["ok", "tab\there"]',
    '{"a": 1,\n "b": "x\ry"}',
    '"\x00"',
    '"\x1f end"',
    '\ufeff[1]',
    '\ufeff',
    ' \ufeff[1]',
    '["\ufeff"]',
    '{"smile": "\\ud83d\\ude00"}',
    '"\x7f ok"',
]
out = []
for text in texts:
    try:
        out.append(["ok", json.loads(text)])
    except json.JSONDecodeError as e:
        out.append([str(e), e.msg, e.pos, e.lineno, e.colno])
    except ValueError as e:
        out.append(["ValueError", str(e)])


def parse_llm(raw):
    try:
        return json.loads(raw)
    except json.JSONDecodeError as e:
        if e.msg == "Invalid control character at":
            return json.loads(raw.replace("\n", "\\n").replace("\t", "\\t"))
        if e.msg.startswith("Unexpected UTF-8 BOM"):
            return json.loads(raw[1:])
        raise


out.append(parse_llm('{"notes": "a\nb", "k": "\tz"}'))
out.append(parse_llm('\ufeff{"x": 1}'))
out.append(json.loads(b'\xef\xbb\xbf{"bytes": true}'))
return out
