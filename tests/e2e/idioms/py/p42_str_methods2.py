meta = {"name": "str_methods2", "description": "string methods used when shaping agent text"}

s = "  Release v2.10.3 — ready for QA\tnow  "
title = "the quick BROWN fox's tale"
out = {
    "partition": [list("key=value=x".partition("=")), list("novalue".partition("=")), list("a.b.c".rpartition(".")), list("abc".rpartition("."))],
    "just": ["7".rjust(3, "0"), "ab".ljust(5, "."), "mid".center(9, "*"), "mid".center(8), "-42".zfill(6), "+7".zfill(4), "abc".zfill(2), "42".zfill(5)],
    "lines": ["a\nb\r\nc\rd\n".splitlines(), "a\nb\n".splitlines(True), "".splitlines(), "x\n\ny".split("\n"), "one\n".splitlines(), "a\x0bb\x0cc\x1cd\u2028e\x85f\r\ng".splitlines(), "p\u2029q\n".splitlines(True)],
    "case": [title.title(), title.capitalize(), title.swapcase(), "Straße".casefold(), "Straße".upper(), "ǅ".lower(), "hello world".title(), "they're bill's".title()],
    "tabs": ["a\tb\tc".expandtabs(), "a\tbc\td".expandtabs(4), "12345\t6".expandtabs(4)],
    "strip": [s.strip(), s.lstrip(), "xxhixx".strip("x"), "www.example.com".strip("cmowz."), "  a  ".rstrip(), "--a--".lstrip("-")],
    "affix": ["v2.10.3".removeprefix("v"), "report.md".removesuffix(".md"), "report.md".removesuffix(".txt"), "abc".startswith(("x", "a")), "abc".endswith("bc", 1), "abc".startswith("b", 1)],
    "find": ["banana".find("na"), "banana".rfind("na"), "banana".find("x"), "banana".index("an", 2), "banana".count("a"), "aaaa".count("aa"), "banana".find("a", -2), "banana".count("")],
    "split": ["a,b,,c".split(","), "a b  c ".split(), "a-b-c-d".split("-", 2), "a-b-c-d".rsplit("-", 1), "  lead".split(" "), "k: v: w".split(": ", 1)],
    "is": ["123".isdigit(), "12.3".isdigit(), "abc1".isalnum(), "abc".isalpha(), "_x1".isidentifier(), "1x".isidentifier(), "   ".isspace(), "Hello World".istitle(), "ABC".isupper(), "abc".islower(), "".isdigit(), "½".isnumeric(), "٣".isdecimal()],
    "replace": ["aaa".replace("a", "b", 2), "a.b.c".replace(".", ""), "abc".replace("", "-"), "x".replace("x", "yy")],
    "join": [", ".join(str(i) for i in range(4)), "".join(reversed("stressed")), "-".join(["a"]), "/".join([])],
    "ops": ["ab" * 3, "ab" * 0, "b" in "abc", "abc" < "abd", "Z" < "a", "abc" == "abc", max("hello"), sorted("banana"), list("héllo")],
    "misc": [len("naïve"), ord("é"), chr(9731), "tic" "tac", "%-5s|%5s" % ("ab", "cd"), str.upper("x"), "a,b".split(",")[-1]],
}
return out
