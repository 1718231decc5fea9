export const meta = { name: 'agent-calls', description: 'Prompts and options as scripts pass them' }
const file = { path: 'src/app.ts', lines: 120 }
const answers = {}
answers.objectInTemplate = await agent(`Review ${file} please`, { label: 'tmpl' })
answers.number = await agent(42, { label: 'num' })
answers.nullOpts = await agent('Plain prompt with null opts', null)
answers.noOpts = await agent('Prompt without opts')
answers.extraOpts = await agent('Refactor the parser', { label: 'refactor', model: 'sonnet', effort: 'low', agentType: 'general-purpose', isolation: 'worktree', phase: 'Fix' })
answers.nullSchema = await agent('Text even with schema: null', { label: 'nullschema', schema: null })
answers.undefinedLabel = await agent('label is undefined', { label: undefined })
const lines = ['first', 'second', 'third']
answers.joined = await agent(['Summarize these:', ...lines.map((l, i) => `${i + 1}. ${l}`)].join('\n'), { label: 'joined' })
// agent() returns a promise right away; awaiting later works
const early = agent('started early', { label: 'early' })
const other = await agent('meanwhile', { label: 'meanwhile' })
answers.early = await early
answers.other = other
// The same prompt asked twice runs twice
const twice = [await agent('roll again', { label: 'again' }), await agent('roll again', { label: 'again' })]
// Text answers are used as they come: trimmed, split, parsed as numbers
const count = parseInt(await agent('How many files?', { label: 'count' }), 10)
const list = (await agent('List owners', { label: 'owners' })).split('\n').map((s) => s.replace(/^[-*]\s*/, '').trim()).filter(Boolean)
return { answers, twice, count: count + 1, list, types: Object.values(answers).map((a) => typeof a) }
