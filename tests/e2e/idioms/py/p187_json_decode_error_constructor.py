meta = {"name": "json-decode-error-constructor", "description": "json.JSONDecodeError(msg, doc, pos) as CPython builds it: the place in the message, the attributes, raise and catch"}
out = []
e = json.JSONDecodeError("boom", "abc\ndef", 5)
out.append(str(e))
out.append(repr(e))
out.append(list(e.args))
out.append([e.msg, e.doc, e.pos, e.lineno, e.colno])
for doc, pos in [("", 0), ("abc", 3), ("a\nb\nc", 4), ("a\nb\nc", 99), ("ünï\ncødé", 6), ("x\n", -1)]:
    d = json.JSONDecodeError("bad", doc, pos)
    out.append([str(d), d.lineno, d.colno])
out.append(isinstance(e, ValueError))
def parse_config(text):
    data = json.loads(text)
    if "version" not in data:
        raise json.JSONDecodeError("missing version", text, len(text))
    return data
for text in ['{"version": 2}', '{\n  "name": "x"\n}', '{"name": ']:
    try:
        out.append(parse_config(text))
    except json.JSONDecodeError as err:
        out.append(["caught", str(err), err.pos, err.lineno, err.colno])
for args in [("boom",), ("boom", "doc"), (), ("a", "b", 1, 2)]:
    try:
        json.JSONDecodeError(*args)
        out.append("built")
    except TypeError as err:
        out.append(str(err))
return out
