export const meta = { name: "review", description: "QA and review at once", phases: [{ title: "gate", detail: "both at once" }], args_schema: { type: "object" } };
phase("gate");
const [qa, review] = await parallel([
  () => agent(`Run QA on ${args?.sha}`, { label: "qa", schema: { verdict: "string" } }),
  () => agent(`Review ${args?.sha}`, { label: "review", schema: { verdict: "string" }, model: "m1", effort: "low" }),
]);
const staged = await pipeline([1, 2, 3], (x) => agent(`stage ${x}`), (y, item, i) => (y === null ? null : { y, item, i }));
const cap = await capability("fs.list", { path: "." }, { label: "ls" }).catch((e) => e.code);
const nested = await workflow("hello", { name: "x" }).catch(() => null);
setTimeout(() => log("timer"), 10);
console.log("done", budget.total, budget.spent(), budget.remaining());
return { ship: qa?.verdict === "pass" && review?.verdict === "approve", staged, cap, nested };
