meta = {"name": "separator_whitespace", "description": "U+001C..U+001F and other Unicode spaces in isspace, split, rsplit, strip and splitlines"}

spaces = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2007\u200a\u2028\u2029\u202f\u205f\u3000"
others = "\x00\x1b\x7f\u180e\u200b\ufeffa"
out = {}
out["isspace_each"] = [[hex(ord(c)), c.isspace()] for c in spaces + others]
out["isspace_all"] = [spaces.isspace(), (spaces + "x").isspace(), "".isspace()]
record = "id\x1fname\x1fqty\x1e1\x1fwidget\x1f3\x1e2\x1fgadget\x1f5"
out["split"] = record.split()
out["split_max"] = [record.split(None, 2), record.rsplit(None, 2), record.split(maxsplit=1), record.rsplit(maxsplit=1)]
out["split_sep"] = [[r.split("\x1f") for r in record.split("\x1e")]]
out["splitlines"] = "a\x1cb\x1dc\x1ed\x1fe\x85f\u2028g".splitlines()
out["splitlines_keep"] = "a\x1cb\x1dc\x1e".splitlines(True)
padded = "\x1c\x1f  value \x1e\u3000"
out["strip"] = [padded.strip(), padded.lstrip(), padded.rstrip(), padded.strip(" "), padded.strip("\x1c")]
words = "  alpha\x1fbeta\x1c\x1cgamma \u2003 delta\x1e"
out["words"] = [words.split(), len(words.split()), " ".join(words.split()), words.rsplit(None, 1)]
cleaned = [line.strip() for line in "one\x1f\ntwo\x1d\n\x1c three".split("\n")]
out["cleaned"] = cleaned
out["count_ws"] = sum(1 for c in record if c.isspace())
return out
