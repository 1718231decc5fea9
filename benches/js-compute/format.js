export const meta = { name: "bench-format", description: "A report's figures: numbers, money, percentages and dates formatted per row (toLocaleString, Intl.NumberFormat, Intl.DateTimeFormat, toLocaleDateString)" };
const n = (args && args.n) || 20000;
const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
const euro = new Intl.NumberFormat("de-DE", { style: "currency", currency: "EUR" });
const pct = new Intl.NumberFormat("en-US", { style: "percent", maximumFractionDigits: 1 });
const day = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", year: "numeric" });
const base = Date.UTC(2024, 0, 1);
let len = 0, sample = [];
for (let i = 0; i < n; i++) {
  const amount = (i * 7919 % 100000) / 7, share = (i % 1000) / 1000, when = new Date(base + i * 3600e3);
  const row = [
    (i * 1234.5).toLocaleString(),
    i.toLocaleString("en-US"),
    amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
    money.format(amount),
    euro.format(-amount),
    pct.format(share),
    day.format(when),
    when.toLocaleDateString("en-US", { month: "short", day: "numeric" }),
    when.toISOString().slice(0, 10),
  ].join(" | ");
  len += row.length;
  if (i % 4999 === 7) sample.push(row);
}
return { len, sample };
