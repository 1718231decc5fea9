meta = {"name": "str-index-len-slices", "description": "len, indexing and slicing of ASCII and non-ASCII strings, before and after +="}
s = "ab,cd;" * 50
t = "naïve café ☕" * 3
out = {}
out["len"] = [len(s), len(t), len(""), len("x")]
out["index"] = [s[0], s[5], s[-1], s[-300], t[2], t[-1], t[11]]
errors = []
for probe in [300, -301, 10 ** 20]:
    try:
        s[probe]
    except IndexError as e:
        errors.append(str(e))
out["errors"] = errors
out["slices"] = [s[2:7], s[-4:], s[:3], s[5:2], s[::50], s[::-97], s[1:20:3], s[-1000:1000] == s, t[3:9], t[::-5], s[300:], s[10 ** 20:]]
acc = "abc"
before = len(acc)
acc += "é"
after = len(acc)
acc += "xyz"
out["grown"] = [before, after, len(acc), acc[3], acc[-1], acc[2:5], acc[::-1]]
walk = ""
i = 0
while i < len(s):
    if s[i] == ",":
        walk += s[i - 2:i]
    i += 1
out["walk"] = [len(walk), walk[:8]]
long = "día, ☕ — “quote” x" * 40
out["long"] = [len(long), [long[i] for i in [0, 62, 63, 64, 65, 127, 128, 129, 639, -1, -64, -65]],
               long[60:70], long[120:200:7], long[-70:-60], long[::-64], long[630:], long[5000:]]
found = []
j = -1
while True:
    j = long.find("☕", j + 1)
    if j == -1:
        break
    found.append(j)
out["long_find"] = [found[:5], len(found), long.rfind("—", 0, 300), long.index("x", 100), long.count("í", 64, 640),
                    long.startswith("—", 7), long.endswith("x", 0, 19), long.rindex("“", 65, 200)]
search = []
for text in [s, t, acc, long]:
    search.append([
        text.find(",", 7), text.find("é", 2), text.rfind("a", 0, 40), text.find("", len(text)), text.find("", len(text) + 1),
        text.count("a", 3, 60), text.count("", 5, 9), text.startswith("cd", 3), text.startswith(("x", "c"), 9, 11),
        text.endswith("d", 0, 4), text.endswith(";", -3), text.index("c", -20) if "c" in text[-20:] else -2,
        text.rindex(text[1], 0, 50) if len(text) > 1 else -3,
    ])
out["search"] = search
chars = 0
for ch in t:
    chars += 1
out["chars"] = chars
return out
