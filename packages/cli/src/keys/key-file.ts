import { LocalError, UsageError } from '../args/command.js'
import { readPrivateJson, writePrivateJson } from './private-file.js'

export type KeyAlg = 'EdDSA' | 'ES256'

export interface StoredKey {
  name: string
  did: string
  alg: KeyAlg
  private_jwk: JsonWebKey
  created_at: string
  /** The P-256 device key an mdoc of this holder is bound to (ISO/IEC 18013-5 §9.1.2.4), made on first need. */
  device_jwk?: JsonWebKey
}

interface KeyFileContent {
  version: 1
  default?: string
  keys: StoredKey[]
}

/** The local key file (default ~/.config/cps/keys.json): named private JWKs and which one acts by default. */
export class KeyFile {
  private constructor(
    readonly file: string,
    private content: KeyFileContent,
  ) {}

  static open(file: string): KeyFile {
    const content = readPrivateJson<KeyFileContent>(file) ?? { version: 1, keys: [] }
    if (!Array.isArray(content.keys)) throw new LocalError(`${file} has no "keys" list`)
    return new KeyFile(file, content)
  }

  get keys(): readonly StoredKey[] {
    return this.content.keys
  }

  get defaultName(): string | undefined {
    return this.content.default
  }

  /** Adds a key; the first key of a file becomes its default. */
  add(key: StoredKey): void {
    if (this.content.keys.some((k) => k.name === key.name))
      throw new UsageError(`a key named "${key.name}" is already in ${this.file}`)
    this.content.keys.push(key)
    this.content.default ??= key.name
    writePrivateJson(this.file, this.content)
  }

  setDefault(name: string): StoredKey {
    const key = this.find(name)
    this.content.default = key.name
    writePrivateJson(this.file, this.content)
    return key
  }

  /** Keeps `jwk` as the device key of the key named `name`, in the same 0600 file. */
  setDeviceKey(name: string, jwk: JsonWebKey): StoredKey {
    const key = this.find(name)
    key.device_jwk = jwk
    writePrivateJson(this.file, this.content)
    return key
  }

  /** By name or DID; without one, the default key (or the only one). */
  find(selector?: string): StoredKey {
    if (selector) {
      const key = this.content.keys.find((k) => k.name === selector || k.did === selector)
      if (!key) throw new LocalError(`no key "${selector}" in ${this.file} (cps keys list)`)
      return key
    }
    const key =
      this.content.keys.find((k) => k.name === this.content.default) ??
      (this.content.keys.length === 1 ? this.content.keys[0] : undefined)
    if (!key)
      throw new LocalError(
        this.content.keys.length
          ? `several keys in ${this.file} and no default: pass --key <name>`
          : `no key yet in ${this.file}: run cps keys new`,
      )
    return key
  }

  /** The next free name `key-N`, for a key made without --name. */
  freeName(): string {
    for (let n = this.content.keys.length + 1; ; n++)
      if (!this.content.keys.some((k) => k.name === `key-${n}`)) return `key-${n}`
  }
}
