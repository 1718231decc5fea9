meta = {"name": "h01", "description": "multi-line string literals inside the wrapped body"}
prompt = """Review the change:
- check tests
  - nested

done"""
raw = '''a
b'''
joined = "x\
y"
f = f"""{1 + 1}
  two"""
return [prompt, raw, joined, f, prompt.splitlines()]
