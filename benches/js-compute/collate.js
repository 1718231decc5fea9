export const meta = { name: "bench-collate", description: "100k owner names sorted with an Intl.Collator (sensitivity base, accented names), then 100k ASCII names with localeCompare (red team 6: 6.6 s and 1.6 s of CPU before collators resolved their options once)" };
const n = (args && args.n) || 100000;
const names = Array.from({ length: n }, (_, i) => ["Zoë", "zack", "Émile", "adam", "Chloé"][i % 5] + ((i * 7919) % 100003));
const coll = new Intl.Collator("en", { sensitivity: "base" });
names.sort((a, b) => coll.compare(a, b));
const ascii = Array.from({ length: n }, (_, i) => ["zoe", "zack", "emile", "adam", "chloe"][i % 5] + ((i * 7919) % 100003));
ascii.sort((a, b) => a.localeCompare(b));
return { collator: [names[0], names[1], names[n >> 1], names.at(-1)], localeCompare: [ascii[0], ascii[n >> 1], ascii.at(-1)] };
