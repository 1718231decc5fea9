// A human-approved actuator loop (the seed's feedback-controller loop with a
// scoped session grant, examples/scoped_session_grant.json and
// issue_controller.loop.json): sense, then act under one operator grant,
// until a brake fires. Args: {count, pause_after, max_iterations, command}.
export const meta = { name: "actuator_loop", description: "a grant-gated actuator loop with brakes", phases: [{ title: "grant" }, { title: "loop" }] };
const a = args ?? {};
const count = a.count ?? 3;
const pauseAfter = a.pause_after ?? -1;
const maxIterations = a.max_iterations ?? 10;
const command = a.command ?? ["sh", "-c", "echo act >> acts.txt"];
phase("grant");
const grant = await capability("grant.request", { capability: "bash", count, reason: "run the actuator command" });
phase("loop");
let actions = 0, halted = "max_iterations", sensed = 0;
for (let i = 0; i < maxIterations; i++) {
  // Sensor: how many actions the world shows.
  const read = await capability("fs.read", { path: "acts.txt" }).catch(() => ({ content: "" }));
  sensed = String(read.content ?? "").split("\n").filter(l => l).length;
  // An operator checkpoint (the test revokes the grant here).
  if (actions === pauseAfter) await capability("events.wait", { source: "operator", type: "continue" });
  try {
    await capability("grant.act", { grant: grant.grant_id, capability: "bash", input: { argv: command } });
    actions++;
  } catch (e) {
    const m = String((e && e.message) || e);
    halted = ["grant_revoked", "grant_exhausted", "grant_expired", "grant_scope"].find(r => m.includes(r)) || ("error: " + m);
    break;
  }
}
return { actions, halted, grant: grant.grant_id, sensed };
