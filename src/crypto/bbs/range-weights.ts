/**
 * Bit weights for a range [0, B] of any size (Lipmaa, Asokan, Niemi 2002; Chaabouni, Lipmaa,
 * Shelat, "Additive combinatorics and discrete logarithm based range protocols", ACISP 2010, §3):
 * with ℓ = bitlength(B) and G_j = ⌊(B + 2^j) / 2^(j+1)⌋ for j = 0..ℓ−1, the G_j sum to B and
 * every integer in [0, B], and only those, is Σ b_j·G_j for some bits b_j. So ℓ bit proofs show
 * x ∈ [0, B] exactly, where powers of two would need a second decomposition for the upper side.
 * Pure integer code: no curve, no randomness.
 */

/** The weights G_0 ≥ G_1 ≥ … ≥ G_(ℓ−1) ≥ 1 for [0, B]; none for B = 0 (x must be 0). */
export function rangeWeights(max: bigint): bigint[] {
  if (max < 0n) throw new RangeError(`a range [0, B] needs B >= 0: ${max}`)
  const weights: bigint[] = []
  for (let j = 0n; max >> j > 0n; j++) weights.push((max + (1n << j)) >> (j + 1n))
  return weights
}

/**
 * Bits b_j with Σ b_j·G_j = x, taking the weights largest first. Greedy works because each
 * weight is at most one more than the sum of the smaller ones (G_j ≤ 1 + Σ_(i>j) G_i), so the
 * remainder after each step stays within what the smaller weights can still make.
 */
export function decompose(x: bigint, weights: readonly bigint[]): Array<0 | 1> {
  const total = weights.reduce((sum, w) => sum + w, 0n)
  if (x < 0n || x > total) throw new RangeError(`${x} is outside [0, ${total}]`)
  let rest = x
  const bits = weights.map((w) => {
    if (rest < w) return 0 as const
    rest -= w
    return 1 as const
  })
  // Unreachable for weights from rangeWeights (tested exhaustively for small B); a guard, not a path.
  if (rest !== 0n) throw new RangeError(`${x} has no decomposition over these weights`)
  return bits
}
