export const meta = { name: 'long-logs-2', description: 'Long log lines: where is the cut?' }
log('a'.repeat(16384))
log('b'.repeat(16385))
console.log('c'.repeat(30000))
log('é'.repeat(10000))
log(`report:\n${'line of findings\n'.repeat(2000)}`)
return 'ok'
