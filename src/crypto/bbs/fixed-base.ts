import mcl from 'mcl-wasm'
import type { G1 } from './mcl-curve.js'

const WINDOWS = 32

/**
 * k·P for a fixed P from a table of every multiple d·2^(8i)·P, d < 256: 32 additions (3.6 µs
 * each in mcl) instead of a 0.27 ms mcl.mul, so the prover's ~4 multiplications per bit cost
 * half as much. Variable-time in k, like mcl.mul (docs/anonymous-proofs.md: prover timing).
 */
export class FixedBase {
  private readonly windows: G1[][] = []

  constructor(point: G1) {
    let base = point
    for (let w = 0; w < WINDOWS; w++) {
      const row: G1[] = [new mcl.G1(), base]
      for (let d = 2; d < 256; d++) row.push(mcl.add(row[d - 1]!, base))
      this.windows.push(row)
      base = mcl.dbl(row[128]!)
    }
  }

  /** k·P for 0 <= k < 2^256. */
  mul(k: bigint): G1 {
    let out: G1 | undefined
    for (let w = 0; k > 0n; w++, k >>= 8n) {
      const digit = Number(k & 0xffn)
      // A table entry is never handed out itself: the caller owns what it gets.
      if (digit) out = out ? mcl.add(out, this.windows[w]![digit]!) : this.windows[w]![digit]!.clone()
    }
    return out ?? new mcl.G1()
  }
}
