meta = {"name": "title_case_names", "description": "normalise contributor and place names for a report header"}

names = ["ǆemal bijedić", "ǈubica", "ﬁona o'neil", "ﬂorence", "straße nord", "jürgen-ölaf", "ΟΔΟΣ ΑΘΗΝΩΝ", "σοφία", "élodie d'arc",
         "mcdonald's 2nd store", "1st place", "ﬀ ﬃ ﬄ ﬆ", "ǳ", "ǉ", "ß", "ﬁ", "ǆ", "İstanbul", "mary-kate o'hara", "x2y3 z9", "ᾳ ᾀ",
         "中a国b", "αΣ", "ΣΑΣ ΣΑΣ.", "a_b c-d", "tschüß", "éé", "ŉ"]
rows = []
for n in names:
    rows.append({"name": n, "title": n.title(), "cap": n.capitalize(), "upper": n.upper(), "lower": n.lower(),
                 "is_title": n.title().istitle(), "swap": n.swapcase()})
header = " | ".join(r["title"] for r in rows[:4])
log(header)
return {"rows": rows, "header": header}
