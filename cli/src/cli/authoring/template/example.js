/** @satisfies {WorkflowMeta} */
export const meta = {
  name: "example",
  description: "Drafts a short summary of a topic from two angles, then has it reviewed.",
  whenToUse: "A starting point: copy it, change the prompts and the schemas.",
  phases: [
    { title: "draft", detail: "one agent per angle, in parallel" },
    { title: "review", detail: "the `example` agent type (.hermes/agents/example.md) reviews the drafts" },
  ],
  argsSchema: { type: "object", properties: { topic: { type: "string" } } },
};

// `args` is what `hwf run … --args '{"topic": "…"}'` passed (undefined without --args).
const topic = args?.topic ?? "WebAssembly components";

phase("draft");
const angles = ["what it is", "why it matters"];
const drafts = await parallel(angles.map((angle) => () =>
  agent(`Write two sentences about ${topic}: ${angle}.`, {
    label: `draft:${angle}`,
    schema: { text: "string" },
  })));

phase("review");
const review = await agent(`Review this summary of ${topic}:\n${drafts.map((d) => d?.text ?? "").join("\n")}`, {
  label: "review",
  agentType: "example",
  schema: { verdict: "string", notes: "string" },
});
log(`review: ${review?.verdict}`);

// A workflow's top-level `return` is its result; TypeScript allows `return`
// only in functions (TS1108), hence the comment for `tsc` and editors.
// @ts-ignore
return { topic, drafts: drafts.map((d) => d?.text ?? null), verdict: review?.verdict ?? null };
