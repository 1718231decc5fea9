// Locale-aware comparison and number formatting as scripts use them
// (issue 28): Node/Bun use ICU; hwf approximates ICU's root collation and
// en-US number formatting without its data.
const words = ["banana", "Apple", "apple", "cherry", "Éclair", "eclair", "zebra", "Zebra", "_draft", "draft-2", "draft 2", "draft10", "draft2", "résumé", "resume", "Resume", "naïve", "naive", "ångström", "Ørsted", "Oslo", "straße", "strasse", "Ærø", "aero", "10", "9", "#tag", "@user", "$cost"];
const natural = ["item10", "item2", "item1", "Item3", "item02", "file-10.txt", "file-9.txt"];
return {
  sorted: words.slice().sort((a, b) => a.localeCompare(b)),
  numeric: natural.slice().sort((a, b) => a.localeCompare(b, undefined, { numeric: true })),
  base: [["a", "A"], ["é", "e"], ["a", "b"], ["ß", "ss"]].map(([a, b]) => a.localeCompare(b, "en", { sensitivity: "base" })),
  accent: [["a", "A"], ["é", "e"]].map(([a, b]) => a.localeCompare(b, "en", { sensitivity: "accent" })),
  signs: [["a", "b"], ["b", "a"], ["a", "a"], ["a", "B"], ["é", "e\u0301"]].map(([a, b]) => a.localeCompare(b)),
  numbers: [1234567.891, 0, -0.5, 1.005, 1e21, 0.000123, -1234.5678, 999.9996, NaN, Infinity, -Infinity, 42].map((x) => x.toLocaleString()),
  options: [
    (1234.5).toLocaleString("en-US", { minimumFractionDigits: 2 }),
    (1.005).toLocaleString(undefined, { maximumFractionDigits: 2 }),
    (0.256).toLocaleString("en-US", { style: "percent" }),
    (0.2567).toLocaleString("en-US", { style: "percent", maximumFractionDigits: 1 }),
    (1234.5).toLocaleString("en-US", { style: "currency", currency: "USD" }),
    (-1234.5).toLocaleString("en-US", { style: "currency", currency: "EUR" }),
    (1234.5).toLocaleString("en-US", { style: "currency", currency: "JPY" }),
    (1234.5).toLocaleString("en-US", { style: "currency", currency: "CHF" }),
    (1234567.5).toLocaleString("en-US", { useGrouping: false }),
    (5).toLocaleString("en-US", { minimumIntegerDigits: 3 }),
    (1234567.891).toLocaleString("de-DE"),
    (1234.5).toLocaleString("de-DE", { style: "currency", currency: "EUR" }),
    (1234567.891).toLocaleString("fr-FR"),
  ],
  intl: [
    new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(9.5),
    new Intl.NumberFormat().format(12345.678),
    ["b", "a", "C"].sort(new Intl.Collator().compare),
    ["x10", "x9"].sort(new Intl.Collator(undefined, { numeric: true }).compare),
  ],
  errors: [
    (() => { try { (1).toLocaleString("en", { style: "currency" }); return "no error"; } catch (e) { return e.constructor.name; } })(),
    (() => { try { (1).toLocaleString("en", { maximumFractionDigits: 101 }); return "no error"; } catch (e) { return e.constructor.name; } })(),
  ],
};
