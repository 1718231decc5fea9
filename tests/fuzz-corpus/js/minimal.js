export const meta = { name: "empty", description: "" };
