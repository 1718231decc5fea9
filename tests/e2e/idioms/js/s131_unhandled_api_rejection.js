export const meta = { name: 'unhandled-api-rejection', description: 'A rejected API call nobody awaits does not end the run' }
const forgotten = parallel('not an array')
const alsoForgotten = pipeline(5)
const answer = await agent('still running', { label: 'run' })
return { answer }
