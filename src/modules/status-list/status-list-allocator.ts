import { randomInt, randomUUID } from 'node:crypto'
import type { Database } from '../../db/database.js'
import * as repo from './status-list.repository.js'

/** W3C Bitstring Status List §6.1 minimum size (16 KiB), for herd privacy. */
export const LIST_BITS = 131_072
const BLOCK = 64

export interface StatusSlot {
  listId: string
  index: number
}

/**
 * Hands out status-list indexes without a hot row per issuance: each instance reserves blocks of
 * counters (one short UPDATE per BLOCK credentials) and maps counter c to index
 * (multiplier·c + offset) mod size. With an odd multiplier and a power-of-two size that map is
 * a bijection, so indexes never repeat while consecutive credentials land far apart. Counters
 * reserved by an instance that stops are simply never used: an unused bit stays 0.
 */
export class StatusListAllocator {
  private readonly blocks = new Map<string, { layout: repo.StatusListLayout; next: number; end: number }>()
  private readonly pending = new Map<string, Promise<void>>()

  constructor(private readonly db: Database) {}

  async allocate(issuerDid: string, purpose = 'revocation'): Promise<StatusSlot> {
    const key = `${issuerDid}\u0000${purpose}`
    for (;;) {
      const block = this.blocks.get(key)
      if (block && block.next < block.end) {
        const counter = block.next++
        const { layout } = block
        return { listId: layout.id, index: (layout.multiplier * counter + layout.offset) % layout.size }
      }
      // One refill per issuer at a time; concurrent callers wait for it and retry.
      let refill = this.pending.get(key)
      if (!refill) {
        refill = this.refill(key, issuerDid, purpose).finally(() => this.pending.delete(key))
        this.pending.set(key, refill)
      }
      await refill
    }
  }

  private async refill(key: string, issuerDid: string, purpose: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const layout =
        (await repo.findNewestList(this.db, issuerDid, purpose)) ?? (await this.createList(issuerDid, purpose))
      const first = await repo.reserveCounters(this.db, layout.id, BLOCK)
      if (first !== undefined) {
        this.blocks.set(key, { layout, next: first, end: first + BLOCK })
        return
      }
      await this.createList(issuerDid, purpose) // full: the next round picks the new list
    }
    throw new Error('could not reserve status-list entries')
  }

  private async createList(issuerDid: string, purpose: string): Promise<repo.StatusListLayout> {
    const layout = {
      id: `sl-${randomUUID()}`,
      size: LIST_BITS,
      multiplier: randomInt(0, LIST_BITS / 2) * 2 + 1,
      offset: randomInt(0, LIST_BITS),
    }
    await repo.insertList(this.db, { ...layout, issuer_did: issuerDid, purpose })
    return layout
  }
}
