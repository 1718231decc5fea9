export const meta = { name: 'json-trailing-text', description: 'JSON.parse of an answer with text after the JSON: V8\'s "after JSON" text whatever letter the text starts with' }
// Agents answer the JSON and then keep talking; the parse fails and the log says why.
const answers = await parallel(['a', 'b', 'c'].map((k) => async () => JSON.parse(await agent(`Give JSON for ${k}`, { label: k }))))
const texts = [
  '{"a": 1} trailing', '{"a": 1} x', '{"a":1} trailing', '{"a": 1}trailing', '{"a": 1} Let',
  '{"ok": true}\n\nLet me know if you need more.', '{"ok": true}\n\nnote: the list is partial', '[1, 2] and more',
  '{"a":1} t', '{"a":1} tr', '{"a":1} nu', '{"a":1} f', '{"a":1} false', '{"a":1} null', '{"a":1}true',
  '12a', '12 true', '"done" - that is all', '"x" "y"', '{"a":1} "b', '{"a":1} -', '{"a":1} -1', '[1] 0', '[1] 01',
  'true false', 'null null', 'false.', '{"a":1}\t\r\n ', ' \n[1]\n ', '{"a":1}\u00a0', '{"a":1}\u2028',
  // the texts inside the value are unchanged
  '{"a": tr}', '{"a": nulll}', '[fals]', '[truex]', '{"a": true x}', '[1 2]', '{"a":1 "b":2}', '[1, tru]',
]
const results = texts.map((t) => { try { return ['ok', JSON.parse(t)] } catch (e) { return [e.name, e.message] } })
log(`first failure: ${results.find((r) => r[0] !== 'ok')[1]}`)
return { answers, results }
