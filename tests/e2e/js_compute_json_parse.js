export const meta = { name: "json-parse", description: "JSON.parse reads what it read before" };
const texts = [
  '{"a":1,"b":[true,false,null],"c":{"d":"e"}}', ' [ 1 , -2.5 , 3e2 , -0 , 0.1 , 12345678901234567890 , 1.5e-7 ] ',
  '{"b":1,"a":2,"b":3}', '{"2":"two","1":"one","x":0,"0":"zero"}', '"esc: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\u0041"',
  '"pair: \\ud83d\\ude00"', '"lone: \\ud800"', '{"__proto__":{"x":1},"y":2}', '"é ü ☺ 😀 raw"', '2147483647', '2147483648', '-2147483648',
  '-2147483649', '1e400', '[]', '{}', '[[[[[]]]]]', '{"":""}', 'true', 'null', '"\u2028\u2029"',
  '{', '[1,]', '{"a":1,}', '01', '1.', '.5', '+1', '"\u0001"', "'x'", '[1 2]', 'NaN', '', ' ', '{"a" 1}', '"abc', 'nul', '[1]x', '{"a":1}}',
  '[' .repeat(120) + ']'.repeat(120), '[' .repeat(99) + ']'.repeat(99),
];
const show = (f) => { try { const v = f(); return { ok: JSON.stringify(v), keys: v && typeof v === "object" ? Object.keys(v).join(",") : null, negz: Object.is(v, -0) || (Array.isArray(v) && v.some((x) => Object.is(x, -0))) }; } catch (e) { return { err: e instanceof SyntaxError ? "SyntaxError" : String(e) }; } };
const out = [];
for (const t of texts) {
  const fast = show(() => JSON.parse(t));
  const slow = show(() => JSON.parse(t, (k, v) => v));
  out.push({ t: t.length > 40 ? t.slice(0, 40) + "…" : t, same: JSON.stringify(fast) === JSON.stringify(slow), fast, slow });
}
const proto = JSON.parse('{"__proto__":{"x":1}}');
return { differ: out.filter((o) => !o.same), count: out.length, ok: out.filter((o) => o.fast.ok !== undefined).length,
  numbers: JSON.parse('[5, 5.5, -0, 2147483648]').map((x) => [typeof x, String(x), Object.is(x, -0)]), nonString: JSON.parse(5),
  protoOwn: Object.prototype.hasOwnProperty.call(proto, "__proto__"), protoIsObject: Object.getPrototypeOf(proto) === Object.prototype };
