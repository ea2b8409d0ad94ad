import type { DidMethod } from './did-method.js'

/**
 * The DID methods this service knows, by name: normalisation, resolution, sign-in and
 * registration ask it rather than naming a method. registered-methods.ts fills the one instance.
 */
export class DidMethodRegistry {
  private readonly byName = new Map<string, DidMethod>()

  /**
   * @param resolvedElsewhere methods this service does not resolve whose DIDs still carry or
   * resolve their own keys: none may be registered here with a key of the caller's choosing.
   */
  constructor(
    methods: readonly DidMethod[],
    private readonly resolvedElsewhere: readonly string[] = [],
  ) {
    for (const method of methods) this.register(method)
  }

  /** Adds a method; returns its removal (a test's made-up method is removed after it). */
  register(method: DidMethod): () => void {
    if (this.byName.has(method.name)) throw new Error(`DID method "${method.name}" is registered twice`)
    this.byName.set(method.name, method)
    return () => {
      if (this.byName.get(method.name) === method) this.byName.delete(method.name)
    }
  }

  /** The method of that name (`key` of did:key…), or undefined for one this service does not resolve. */
  get(name: string): DidMethod | undefined {
    return this.byName.get(name)
  }

  /** Every method, in registration order. */
  all(): DidMethod[] {
    return [...this.byName.values()]
  }

  /**
   * Whether did:<name> DIDs carry or resolve their own keys (every method resolved here, and the
   * known ones resolved elsewhere): registering one with another key would impersonate it.
   */
  carriesOrResolvesOwnKeys(name: string): boolean {
    return this.byName.has(name) || this.resolvedElsewhere.includes(name)
  }
}
