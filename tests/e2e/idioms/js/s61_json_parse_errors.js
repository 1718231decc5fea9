export const meta = { name: 'json-parse-errors', description: "JSON.parse's SyntaxError texts for what agents answer instead of JSON, in e.message and in failure logs" }
const parse = (text) => { try { return { ok: JSON.parse(text) } } catch (e) { return { error: `${e.name}: ${e.message}` } } }
// Agents that answer prose, fenced JSON or truncated JSON: parsing in a parallel slot fails and the log says why.
const answers = await parallel(['a', 'b', 'c', 'd', 'e'].map((k) => async () => {
  const text = await agent(`Give JSON for ${k}`, { label: k })
  return JSON.parse(text)
}))
const texts = [
  'Here is the result you asked for: {"score": 8}',
  'Here',
  'Sure!',
  '```json\n{"score": 8}\n```',
  '{"score": 8, "notes": "fine"} Let me know if you need more.',
  '{"score": 8,}',
  '[1, 2, 3,]',
  "{'score': 8}",
  '{score: 8}',
  '{"score": 8',
  '{"summary": "The code looks good',
  '{"a": [1, 2, 3], "b": {"c": undefined}}',
  '{"a": tru}',
  'tru',
  'trux',
  'nul',
  'True',
  'None',
  'NaN',
  'undefined',
  '[object Object]',
  'Infinity',
  '',
  '   ',
  '01',
  '-',
  '1.',
  '1e+',
  '"\\x"',
  '"\\u12"',
  '"a\nb"',
  '{"a" 1}',
  '{"a":1 "b":2}',
  '[1 2]',
  '{,}',
  '{"a":[}',
  '{"a": .5}',
  'über alles, and then some more text',
  'The answer is: über',
  '{"note": "ok"}\n\nThat is all.',
  '\ufeff{"a":1}',
  '{"a":1}}',
  '[1,2,3,4,5,6,7,8,9,10,11,12,x]',
]
const results = texts.map(parse)
results.push(parse(undefined), parse({}), parse(null), parse(12), parse('{"valid": [1, {"x": null}], "ok": true}'))
// The texts ride in log lines too, as a workflow reports a bad answer.
for (const t of ['Here is', '{"a":1,}', '']) { try { JSON.parse(t) } catch (e) { log(`could not parse: ${e.message}`) } }
return { answers, results }
