export const meta = { name: "bench-empty", description: "Nothing: the process and runtime start-up" };
return {};
