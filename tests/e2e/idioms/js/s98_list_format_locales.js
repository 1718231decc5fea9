export const meta = { name: 'list-format-locales', description: 'Lists of owners and options in German, French, Spanish (y/e, o/u), Italian, Portuguese, Dutch, Japanese, Chinese, Korean, Russian, Polish and Swedish, every type and style' }
const lists = [['Ana'], ['Ana', 'Ben'], ['Ana', 'Ben', 'Iris'], ['Ana', 'Ben', 'Carla', 'Hilda', 'Otto'], ['7', '8'], ['uno', 'once', '11'], ['Ana', 'hielo'], ['Ana', 'Hoja']]
const out = {}
for (const loc of ['de-DE', 'fr-FR', 'es-ES', 'it-IT', 'pt-BR', 'nl-NL', 'ja-JP', 'zh-CN', 'ko-KR', 'ru-RU', 'pl-PL', 'sv-SE', 'es-MX', 'zh-TW', 'en-GB', 'en-US']) {
  out[loc] = ['conjunction', 'disjunction', 'unit'].flatMap((type) => ['long', 'short', 'narrow'].map((style) => { const f = new Intl.ListFormat(loc, { type, style }); return lists.map((l) => f.format(l)).join(' | ') }))
}
log(out['de-DE'][0])
return out
