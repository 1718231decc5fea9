export const meta = { name: 42, description: null, phases: "gate", args_schema: [], extra: { deep: { deeper: [1, { a: undefined }] } } };
export const other = 1;
export default function () {}
return 1;
