export const meta = {
  name: 'qa-gate',
  description: 'Run QA checks with retries on unparseable answers, then gate',
  phases: ['Check', 'Gate'],
}
// Agents answer in text; the script parses JSON out of it and retries.
function extractJson(text) {
  if (typeof text !== 'string') throw new TypeError(`expected text, got ${text === null ? 'null' : typeof text}`)
  const fenced = text.match(/```(?:json)?\s*([\s\S]*?)```/)
  const raw = fenced ? fenced[1] : text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)
  return JSON.parse(raw)
}
async function askWithRetry(name, prompt, tries = 3) {
  const errors = []
  for (let attempt = 1; attempt <= tries; attempt++) {
    try {
      const text = await agent(`${prompt}\n(attempt ${attempt})`, { label: `qa:${name}` })
      const parsed = extractJson(text)
      if (typeof parsed.passed !== 'boolean') throw new Error(`missing "passed" in ${JSON.stringify(parsed)}`)
      return { name, attempt, ...parsed, errors }
    } catch (e) {
      errors.push(`${e.name}: ${e.message}`.replace(/\s+at position \d+.*$/, ''))
      log(`[${name}] attempt ${attempt} failed (${e.name})`)
    }
  }
  return { name, attempt: tries, passed: false, gaveUp: true, errors }
}
phase('Check')
const SUITES = ['smoke', 'regression', 'a11y', 'perf']
const results = await parallel(SUITES.map((s) => () => askWithRetry(s, `Run the ${s} suite and answer as JSON {passed, failures}`)))
phase('Gate')
const failures = results.flatMap((r) => (r.failures ?? []).map((f) => `${r.name}/${f}`))
const gate = {
  pass: results.every((r) => r.passed),
  retried: results.filter((r) => r.attempt > 1).map((r) => `${r.name}×${r.attempt}`),
  gaveUp: results.filter((r) => r.gaveUp).map((r) => r.name),
  failures: failures.sort(),
  errorKinds: [...new Set(results.flatMap((r) => r.errors.map((e) => e.split(':')[0])))].sort(),
}
log(gate.pass ? 'QA gate passed' : `QA gate failed: ${gate.failures.length} failures, ${gate.gaveUp.length} gave up`)
return { gate, results: results.map(({ name, attempt, passed }) => ({ name, attempt, passed })) }
