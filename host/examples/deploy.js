// The workflow host/examples/custom_capability.rs runs: one call of the
// host's own `deploy` capability. `deploy` is external_write, so the
// default policy parks the run until an operator approves the call.
export const meta = { name: "deploy", description: "Deploy a service through the host's deploy capability" };
const done = await capability("deploy", { service: args.service, env: "staging" });
return { deployed: done.deployed, env: done.env };
