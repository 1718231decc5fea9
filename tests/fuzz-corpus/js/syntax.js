export const meta = { name: "syntax", description: "edge syntax" };
label: for (const [k, v] of Object.entries({ a: 1 })) { if (k) continue label; }
const re = /(?<year>\d{4})-\u{1F600}[^\]\/]*/gu;
const tpl = `a${`b${`c${1}`}`}`;
class A { #p = 1; static { this.q = 2; } get p() { return this.#p; } async *gen() { yield* [1]; } }
const o = { ...{ a: 1 }, [Symbol.iterator]: function* () {}, "\u2028": 1 };
async function f({ a = 1, ...rest } = {}, [b, , c] = []) { return a ?? b ?? c; }
let x = 0n ** 2n; x ||= 1n; x &&= 2n;
return [re.source, tpl, new A().p, await f(), typeof o, String(x)];
