/** Deterministic pseudo-random bytes (xorshift32), so failures reproduce. */
export function pseudoRandomBytes(length: number, seed = 0x9e3779b9): Uint8Array {
  const words = new Uint32Array(Math.ceil(length / 4))
  let x = seed >>> 0
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    words[i] = x
  }
  return new Uint8Array(words.buffer, 0, length)
}

export async function collect(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  for await (const part of source) parts.push(part)
  const buf = Buffer.concat(parts)
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
}
