export const meta = {
  name: "loop-until-dry",
  description: "Hunt bugs area by area until a round verifies nothing new.",
  whenToUse: "Bug hunts and QA sweeps where finders suggest follow-up areas.",
  phases: [
    { title: "find", detail: "finders over the current areas, in parallel" },
    { title: "verify", detail: "every new candidate checked by every verifier, in parallel" },
    { title: "decision", detail: "count what was verified; continue or stop" },
  ],
};

const a = args ?? {};
const subject = a.subject ?? "";
let areas = a.areas ?? ["totals", "state", "accessibility"];
const verifiers = a.verifiers ?? ["unit", "integration"];
const maxRounds = a.max_rounds ?? 4;
const dryRoundLimit = a.dry_round_limit ?? 1;

let round = 0;
let dryCount = 0;
const candidates = new Set();
const verified = new Set();

while (areas.length > 0 && dryCount < dryRoundLimit && round < maxRounds) {
  round += 1;
  phase(`round ${round} find`);
  const found = await parallel(areas.map((area) => () =>
    agent(`Find candidate bugs for area ${area}`, {
      label: `finder:${area}`,
      phase: "find",
      schema: { bugs: "list", followups: "list" },
      context: { area, round, subject },
    })));

  const seen = new Set();
  const roundBugs = [];
  const followups = [];
  for (const result of found) {
    if (!result) continue;
    for (const bug of result.bugs ?? []) {
      if (typeof bug?.id !== "string" || seen.has(bug.id)) continue;
      seen.add(bug.id);
      roundBugs.push(bug);
      candidates.add(bug.id);
    }
    for (const f of result.followups ?? []) {
      if (typeof f === "string" && !followups.includes(f)) followups.push(f);
    }
  }

  const toVerify = roundBugs.filter((b) => !verified.has(b.id));
  let newVerified = 0;
  if (toVerify.length > 0) {
    phase(`round ${round} verify`);
    const checks = [];
    for (const bug of toVerify) {
      for (const verifier of verifiers) {
        checks.push(() => agent(`Verify candidate bug ${bug.id} using ${verifier}`, {
          label: `verifier:${verifier}:${bug.id}`,
          phase: "verify",
          schema: { verdict: "string", notes: "string" },
          context: { verifier, bug, round },
        }));
      }
    }
    const verdicts = await parallel(checks);
    toVerify.forEach((bug, b) => {
      const slots = verdicts.slice(b * verifiers.length, (b + 1) * verifiers.length);
      if (slots.every((v) => v && v.verdict === "confirmed") && !verified.has(bug.id)) {
        verified.add(bug.id);
        newVerified += 1;
      }
    });
  }

  phase(`round ${round} decision`);
  dryCount = newVerified > 0 ? 0 : dryCount + 1;
  log(`round ${round}: ${roundBugs.length} unique candidates, ${newVerified} new verified, dry_count=${dryCount}`);
  areas = followups;
}

return {
  rounds: round,
  dry_count: dryCount,
  max_round_reached: areas.length > 0 && round >= maxRounds,
  verified_bug_ids: [...verified].sort(),
  candidate_bug_ids: [...candidates].sort(),
  remaining_areas: areas,
};
