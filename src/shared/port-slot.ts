/**
 * An extension point a lower module declares and a higher module fills from its own plugin: the
 * lower module is made first and never imports the higher one. Empty until filled, it reads as
 * an absent port.
 */
export class PortSlot<T extends object> {
  #port: T | undefined

  constructor(private readonly name: string) {}

  fill(port: T): void {
    if (this.#port) throw new Error(`${this.name} is filled already`)
    this.#port = port
  }

  get port(): T | undefined {
    return this.#port
  }

  /** The port, for a call that has no meaning without it. */
  get filled(): T {
    if (!this.#port) throw new Error(`${this.name} is not filled`)
    return this.#port
  }
}
