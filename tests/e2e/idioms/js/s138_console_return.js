export const meta = { name: 'console-return', description: 'console.* and log() return undefined' }
const files = ['a.ts', 'b.ts']
const echoed = files.map((f) => console.log(`checking ${f}`))
const warned = console.warn('careful')
const logged = files.map((f) => log(f))
const flag = files.length > 1 && console.info('many files')
return { echoed, warned: warned === undefined ? 'undefined' : warned, logged, flag: flag === undefined ? 'undefined' : flag }
