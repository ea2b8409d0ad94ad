/** Answers a URL the service serves itself (a schema's context, a DID URL), or undefined: what a JSON-LD document loader reads before the bundled contexts. */
export type LocalDocuments = (url: string) => Promise<unknown>
