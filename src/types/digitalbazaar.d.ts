// The Digital Bazaar JSON-LD context packages ship no types: each exports a Map of context URL to document.
declare module '@digitalbazaar/citizenship-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
declare module '@digitalbazaar/credentials-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
declare module '@digitalbazaar/data-integrity-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
declare module '@digitalbazaar/multikey-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
declare module '@digitalbazaar/vdl-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
declare module '@digitalbazaar/vdl-aamva-context' {
  export const contexts: Map<string, Record<string, unknown>>
}
