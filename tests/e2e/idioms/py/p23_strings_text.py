meta = {"name": "strings_text", "description": "text munging on agent output"}

raw = """Title: Release Notes
Author:  Dana O'Neil
Tags: infra, ci ,  docs

- Fixed: crash on start
- Added: dark mode
* note: this line uses a star
"""
header, _, body = raw.partition("\n\n")
fields = {}
for line in header.splitlines():
    k, sep, v = line.partition(":")
    if sep:
        fields[k.strip().lower()] = v.strip()
tags = [t.strip() for t in fields["tags"].split(",") if t.strip()]
items = [l[2:].split(": ", 1) for l in body.splitlines() if l.startswith(("- ", "* "))]
words = raw.split()
slug = "-".join("".join(ch for ch in w.lower() if ch.isalnum()) for w in fields["title"].split())
res = {
    "fields": fields, "tags": tags, "items": items, "nwords": len(words), "slug": slug,
    "caps": [fields["title"].upper(), fields["title"].lower(), "hello world".title(), "hELLO wORLD".swapcase(),
             "élan vital".capitalize(), "ǅemal".casefold(), "o'neil's book".title()],
    "pad": ["7".zfill(3), "-7".zfill(4), "ab".ljust(5, "."), "ab".rjust(5), "abc".center(8, "=")],
    "find": ["banana".find("an"), "banana".rfind("an"), "banana".find("x"), "banana".count("a"),
             "banana".index("n", 3), "banana".replace("a", "o", 2), "a,b,,c".split(","), "a  b \t c".split(),
             "k=v=w".split("=", 1), "k=v=w".rsplit("=", 1), "path/to/file.txt".rpartition("/"),
             "  x  ".strip(), "xxhixx".strip("x"), "..a..".lstrip("."), "..a..".rstrip(".")],
    "pred": ["123".isdigit(), "12.3".isdigit(), "abc".isalpha(), "ab1".isalnum(), "   ".isspace(),
             "ABC".isupper(), "Title Case".istitle(), "".isdigit(), "x".islower(), "٣".isdigit(), "½".isnumeric(),
             "v1.2".startswith("v"), "a.py".endswith((".py", ".js")), "abc" in "xabcx", "ß".upper()],
    "prefix": ["feat: x".removeprefix("feat: "), "file.tar.gz".removesuffix(".gz"), "x".removeprefix("y")],
    "join": [", ".join(["a", "b"]), "".join(reversed("stressed")), "abc"[::-1], "abcdef"[1:5:2], "abc"[-1],
             "line1\r\nline2\rline3\n".splitlines(), "a\nb\n".splitlines(True), "tab\tsep".expandtabs(4)],
    "ord": [ord("A"), chr(97), [ord(c) - 96 for c in "abc"], "".join(chr(ord(c) + 1) for c in "HAL")],
    "mul": ["-" * 10, "ab" * 0, 3 * "x"],
    "repr": [repr("it's"), repr('say "hi"'), repr("both ' and \""), repr("tab\there"), repr("uni é ✓"), repr("\x00\x7f")],
    "cmp": ["apple" < "banana", "Zebra" < "apple", "a" * 3 == "aaa", sorted(["b", "A", "a", "B"]),
            sorted(["b", "A", "a", "B"], key=str.lower), min("hello"), max(["x", "yy", "z"], key=len)],
    "encode": [len("héllo"), len("héllo".encode()), "héllo".encode("utf-8").decode("utf-8"), str(b"ab"), "x".encode()],
}
return res
