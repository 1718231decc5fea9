export const meta = {
  name: "deep-research",
  description: "Deep research: fan out searches, read the sources, adversarially verify each claim, write a cited report.",
  whenToUse: "When the user wants a multi-source, fact-checked research report. args: the question, as a string.",
  phases: [
    { title: "Scope", detail: "split the question into search angles" },
    { title: "Search", detail: "one search agent per angle, in parallel" },
    { title: "Fetch", detail: "dedupe URLs, read each source, extract falsifiable claims" },
    { title: "Verify", detail: "three skeptics per claim try to refute it" },
    { title: "Synthesize", detail: "merge what survived into a cited report" },
  ],
};

// The shape of Claude Code's bundled /deep-research workflow, written for
// hwf: the same globals (args, agent, parallel, pipeline, phase, log) and
// the same rules (a dead agent is null; parallel is a barrier; pipeline is
// not).
const VOTES_PER_CLAIM = 3;
const REFUTATIONS_TO_DROP = 2;
const MAX_SOURCES = 15;
const MAX_CLAIMS = 25;

const question = (typeof args === "string" && args.trim()) || "";
if (!question) {
  return { error: "No research question given. Pass it as args: a string." };
}

phase("Scope");
const scope = await agent(`Split this research question into 2-5 independent web search angles: ${question}`, {
  label: "scope",
  schema: {
    type: "object",
    required: ["angles"],
    properties: { angles: { type: "array", items: { type: "string" } } },
  },
});
const angles = (scope?.angles ?? []).filter((a) => typeof a === "string" && a.trim());
if (angles.length === 0) {
  return { question, error: "The scoping agent produced no search angles." };
}

phase("Search");
const searches = await parallel(
  angles.map((angle) => () =>
    agent(`Search the web for: ${angle}. Report the most relevant sources.`, {
      label: `search:${angle}`,
      schema: {
        type: "object",
        required: ["sources"],
        properties: {
          sources: {
            type: "array",
            items: { type: "object", required: ["url"], properties: { url: { type: "string" }, title: { type: "string" } } },
          },
        },
      },
    }),
  ),
);
const seen = new Set();
const sources = [];
for (const found of searches) {
  for (const s of found?.sources ?? []) {
    const url = typeof s?.url === "string" ? s.url.trim() : "";
    if (!url || seen.has(url)) continue;
    seen.add(url);
    sources.push({ url, title: s.title ?? url });
  }
}
if (sources.length > MAX_SOURCES) {
  log(`fetching ${MAX_SOURCES} of ${sources.length} sources; the rest were dropped`);
}
const toFetch = sources.slice(0, MAX_SOURCES);

phase("Fetch");
const extracted = await pipeline(
  toFetch,
  (source) =>
    agent(`Read ${source.url} and extract the falsifiable claims it makes about: ${question}`, {
      label: `fetch:${source.url}`,
      schema: {
        type: "object",
        required: ["claims"],
        properties: { claims: { type: "array", items: { type: "string" } } },
      },
    }),
  (page, source) => (page?.claims ?? []).map((claim) => ({ claim, url: source.url })),
);
let claims = extracted.filter(Boolean).flat();
if (claims.length > MAX_CLAIMS) {
  log(`verifying ${MAX_CLAIMS} of ${claims.length} claims; the rest were dropped`);
  claims = claims.slice(0, MAX_CLAIMS);
}

phase("Verify");
const verdicts = await parallel(
  claims.map((c, i) => () =>
    parallel(
      Array.from({ length: VOTES_PER_CLAIM }, (_, k) => () =>
        agent(`Try to REFUTE this claim from ${c.url}: "${c.claim}". Say refuted: true only with evidence.`, {
          label: `verify:${i}:${k}`,
          schema: {
            type: "object",
            required: ["refuted"],
            properties: { refuted: { type: "boolean" }, reason: { type: "string" } },
          },
        }),
      ),
    ),
  ),
);
const kept = [];
const dropped = [];
claims.forEach((c, i) => {
  // A null verifier is "unverified", not a refutation.
  const votes = (verdicts[i] ?? []).filter(Boolean);
  const refutations = votes.filter((v) => v.refuted === true).length;
  (refutations >= REFUTATIONS_TO_DROP ? dropped : kept).push({ ...c, votes: votes.length, refutations });
});
log(`${kept.length} claims survived verification, ${dropped.length} were refuted`);

phase("Synthesize");
const report = await agent(
  `Write a cited research report answering: ${question}\nUse only these verified claims:\n` +
    kept.map((c, i) => `[${i + 1}] ${c.claim} (${c.url})`).join("\n"),
  {
    label: "synthesize",
    schema: { type: "object", required: ["report"], properties: { report: { type: "string" } } },
  },
);

return {
  question,
  report: report?.report ?? null,
  sources: toFetch.map((s) => s.url),
  claims: kept.map((c) => ({ claim: c.claim, url: c.url })),
  refuted: dropped.map((c) => c.claim),
};
