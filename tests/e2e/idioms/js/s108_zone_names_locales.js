export const meta = { name: 'zone-names-locales', description: 'timeZoneName in the table languages: MEZ, GMT+1, UTC−5, Mitteleuropäische Normalzeit, the zone placed as ICU does (zh before the time, zh-TW in brackets), timeStyle full/long' }
const winter = Date.UTC(2024, 2, 5, 13, 7, 8), summer = Date.UTC(2024, 6, 15, 21, 45, 0)
const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'UTC', 'Asia/Kolkata', 'Australia/Sydney']
const styles = ['short', 'long', 'shortOffset', 'longOffset', 'shortGeneric', 'longGeneric']
const out = {}
for (const loc of ['de-DE', 'fr-FR', 'es', 'it', 'pt-BR', 'nl', 'ja-JP', 'zh-CN', 'ko', 'pl', 'sv', 'zh-TW', 'fr-CA', 'de-AT']) {
  out[loc] = {
    names: zones.map((timeZone) => styles.map((timeZoneName) => new Intl.DateTimeFormat(loc, { timeZone, timeZoneName }).format(summer)).join(' | ')),
    common: [
      new Date(winter).toLocaleString(loc, { timeZone: 'Europe/Berlin', timeZoneName: 'short' }),
      new Date(summer).toLocaleTimeString(loc, { timeZone: 'America/New_York', timeZoneName: 'short' }),
      new Date(winter).toLocaleString(loc, { timeZone: 'Europe/Berlin', dateStyle: 'full', timeStyle: 'full' }),
      new Date(summer).toLocaleString(loc, { timeZone: 'Asia/Tokyo', dateStyle: 'medium', timeStyle: 'long' }),
      new Date(winter).toLocaleString(loc, { timeZone: 'Europe/Berlin', year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'long' }),
      new Date(summer).toLocaleDateString(loc, { timeZone: 'Asia/Kolkata', timeZoneName: 'shortOffset' }),
    ],
    parts: JSON.stringify(new Intl.DateTimeFormat(loc, { timeZone: 'Europe/Berlin', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).formatToParts(winter)),
  }
}
log(`berlin: ${new Date(winter).toLocaleString('de-DE', { timeZoneName: 'short', timeZone: 'Europe/Berlin' })}`)
return out
