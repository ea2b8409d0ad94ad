/**
 * The DNS edge (DESIGN.md "Architecture": adapters are passed into buildApp). Only TXT lookups
 * are needed (domain ownership proofs); tests pass an in-memory resolver.
 */
import { Resolver } from 'node:dns/promises'

export interface DnsResolver {
  /**
   * TXT records of `name`, each as its character-strings (RFC 1035 §3.3.14), like
   * `dns.promises.resolveTxt`. Rejects with an error whose `code` is a node:dns code
   * (ENODATA and ENOTFOUND: no such record or name).
   */
  resolveTxt(name: string): Promise<string[][]>
}

/** The system's DNS servers, with a per-query timeout and bounded retries. */
export function createDnsResolver(options: { timeoutMs: number; tries?: number }): DnsResolver {
  const resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries ?? 2 })
  return { resolveTxt: (name) => resolver.resolveTxt(name) }
}
