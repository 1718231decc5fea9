export const meta = { name: "bench-queue", description: "Arrays as queues: a BFS over 100k findings' follow-ups with push/shift, then a 100k-item work queue of ids drained with shift (Node 20 is quadratic on it too)" };
const n = (args && args.n) || 100000;
// Follow-up links between findings, as agents report them.
const next = (i, k) => (i * (7 + 6 * k) + 1 + 4 * k) % n;
const seen = new Uint8Array(n);
const queue = [0];
seen[0] = 1;
let visited = 0, depthSum = 0;
const depth = new Int32Array(n);
while (queue.length) {
  const i = queue.shift();
  visited++;
  depthSum += depth[i];
  for (let k = 0; k < 3; k++) {
    const j = next(i, k);
    if (!seen[j]) { seen[j] = 1; depth[j] = depth[i] + 1; queue.push(j); }
  }
}
// A work queue of task ids drained in order, failed ones retried once
// (pushed back negated).
const work = [];
for (let i = 1; i <= n; i++) work.push(i);
let done = 0, retries = 0;
while (work.length) {
  const id = work.shift();
  if (id > 0 && id % 97 === 0) { retries++; work.push(-id); continue; }
  done++;
}
return { visited, depthSum, done, retries };
