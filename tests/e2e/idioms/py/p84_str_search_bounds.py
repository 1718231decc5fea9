meta = {"name": "str_search_bounds", "description": "find/rfind/count/index with a start past the end, and str.isprintable, as in CPython"}

s = "hello"
found = [s.find("", 10), s.rfind("", 10), s.count("", 10), s.find("", 5), s.count("", 5), s.find("", 3, 1),
         s.count("", 3, 1), s.find("l", 2, 1), s.find("", -2), s.rfind("l", 10), s.count("l", 7), s.find("o", 4)]
try:
    s.index("", 10)
    missing = "no error"
except ValueError as e:
    missing = str(e)
printable = ["a\tb".isprintable(), "plain text".isprintable(), "".isprintable(), "caf\u00e9".isprintable(),
             "x\u200by".isprintable(), "line\n".isprintable(), "\u00a0".isprintable()]
return {"found": found, "missing": missing, "printable": printable}
