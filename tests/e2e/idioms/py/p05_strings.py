meta = {"name": "string_tools", "description": "parse and tidy text"}

raw = "  Fix: crash in Parser;  Add: docs for CLI;fix: typo in README ; chore:bump deps  "
entries = [e.strip() for e in raw.split(";") if e.strip()]
parsed = []
for e in entries:
    kind, _, rest = e.partition(":")
    parsed.append({"kind": kind.strip().lower(), "text": rest.strip()})
by_kind = {}
for p in parsed:
    by_kind.setdefault(p["kind"], []).append(p["text"])
s = "Hello, World"
checks = [s.lower(), s.upper(), s.swapcase(), s.title(), "hello world".capitalize(), s.casefold(),
          s.find("o"), s.rfind("o"), s.index("W"), s.count("l"), s.replace("l", "L", 2),
          s.startswith(("He", "X")), s.endswith("ld"), s.startswith("World", 7), s[::-1], s[-5:], s[1:8:2],
          "a,b,,c".split(","), "a b  c".split(), "k=v=w".split("=", 1), "k=v=w".rsplit("=", 1),
          "line1\nline2\r\nline3".splitlines(), "xxabcxx".strip("x"), "--opt".lstrip("-"), "file.txt".removesuffix(".txt"),
          "v1.2".removeprefix("v"), "abc".center(9, "*"), "7".rjust(3, "0"), "ab".ljust(4, "."),
          "123".isdigit(), "abc".isalpha(), "ab1".isalnum(), "  ".isspace(), "ABC".isupper(), "Title Case".istitle(),
          "-".join(["a", "b", "c"]), "ab" * 3, "a\tb".expandtabs(4), "x".join("123"), "%s-%d" % ("id", 7),
          "tic tac".partition("x"), "a.b.c".rpartition("."), "ǅungla".lower(), "straße".upper(), "İ".lower() == "i̇",
          "ﬁ".upper(), len("naïve"), "é" == "é", sorted(["b", "A", "c", "B"], key=str.lower), sorted(["b", "A", "c"]),
          max(["apple", "fig", "banana"], key=len), min(["apple", "fig", "banana"], key=len), "abc" < "abd", "Z" < "a",
          str(None), str(True), str(3.0), str(1e-5), str(10**20), repr("it's"), repr('say "hi"')]
words = "the quick brown the lazy the end".split()
freq = {}
for w in words:
    freq[w] = freq.get(w, 0) + 1
top = sorted(freq.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
slug = "-".join("".join(c for c in w.lower() if c.isalnum()) for w in "Hello, World! It's 2024".split())
trans = "hello".translate(str.maketrans("el", "ip"))
return {"entries": entries, "parsed": parsed, "by_kind": by_kind, "checks": checks, "top": top, "slug": slug, "trans": trans}
