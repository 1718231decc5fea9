export const meta = { name: "hostile", description: `not ${"pure"}`, phases: [...[1, 2]], get x() { return Date.now(); } };
import fs from "fs";
const r = require("child_process");
await import("./x.js");
const d = new Date(); Math.random(); Date.now();
globalThis.constructor.constructor("return this")();
while (true) {}
