// Runs an hwf workflow script under Node the way hwf runs it: the body of
// an async function of `args`, `export const meta` a plain declaration.
// Usage: node node-run.mjs SCRIPT.js [ARGS_JSON]  -> prints the result as JSON.
import { readFileSync } from "node:fs";
const [file, argsText] = process.argv.slice(2);
const src = readFileSync(file, "utf8").replace(/^export const meta\s*=/m, "const meta =");
const AsyncFunction = (async () => {}).constructor;
const args = argsText ? JSON.parse(argsText) : null;
const result = await new AsyncFunction("args", src)(args);
process.stdout.write(JSON.stringify(result) + "\n");
