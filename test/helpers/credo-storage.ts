import {
  InjectionSymbols,
  JsonTransformer,
  RecordDuplicateError,
  RecordNotFoundError,
  StorageVersionRecord,
  type AgentContext,
  type BaseRecord,
  type BaseRecordConstructor,
  type DependencyManager,
  type Module,
  type Query,
  type StorageService,
  type TagsBase,
} from '@credo-ts/core'

// Credo's record classes are generic over their tags; the store holds any of them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRecord = BaseRecord<any, any, any>

interface Stored {
  type: string
  value: Record<string, unknown>
  tags: TagsBase
}

/**
 * Credo 0.6 keeps its records behind a StorageService that Askar or Drizzle normally provide; a
 * holder agent in a test needs neither, so this keeps them in a Map (one agent, one context).
 * Equality and "array contains" tag queries with $and/$or: what the W3C credential and OpenID4VC
 * repositories ask.
 */
class MemoryStorageService implements StorageService<AnyRecord> {
  readonly supportsCursorPagination = false
  private readonly records = new Map<string, Stored>()

  constructor() {
    // A fresh store is at the framework's storage version: the agent refuses to start on an older one.
    const version = new StorageVersionRecord({ storageVersion: StorageVersionRecord.frameworkStorageVersion })
    this.put(version)
  }

  private put(record: AnyRecord): void {
    record.updatedAt = new Date()
    const value = JsonTransformer.toJSON(record)
    delete value._tags
    this.records.set(record.id, { type: record.type, value, tags: record.getTags() })
  }

  private read<T extends AnyRecord>(stored: Stored, id: string, recordClass: BaseRecordConstructor<T>): T {
    const record = JsonTransformer.fromJSON<T>(stored.value, recordClass)
    record.id = id
    record.replaceTags(stored.tags)
    return record
  }

  async save(_ctx: AgentContext, record: AnyRecord): Promise<void> {
    if (this.records.has(record.id))
      throw new RecordDuplicateError(`record ${record.id} exists`, { recordType: record.type })
    this.put(record)
  }

  async update(_ctx: AgentContext, record: AnyRecord): Promise<void> {
    if (!this.records.has(record.id))
      throw new RecordNotFoundError(`record ${record.id} not found`, { recordType: record.type })
    this.put(record)
  }

  async delete(ctx: AgentContext, record: AnyRecord): Promise<void> {
    if (!this.records.delete(record.id))
      throw new RecordNotFoundError(`record ${record.id} not found`, { recordType: record.type })
  }

  async deleteById(_ctx: AgentContext, recordClass: BaseRecordConstructor<AnyRecord>, id: string): Promise<void> {
    if (!this.records.delete(id))
      throw new RecordNotFoundError(`record ${id} not found`, { recordType: recordClass.type })
  }

  async getById<T extends AnyRecord>(
    _ctx: AgentContext,
    recordClass: BaseRecordConstructor<T>,
    id: string,
  ): Promise<T> {
    const stored = this.records.get(id)
    if (!stored || stored.type !== recordClass.type) {
      throw new RecordNotFoundError(`record ${id} not found`, { recordType: recordClass.type })
    }
    return this.read(stored, id, recordClass)
  }

  async getAll<T extends AnyRecord>(ctx: AgentContext, recordClass: BaseRecordConstructor<T>): Promise<T[]> {
    return this.findByQuery(ctx, recordClass, {})
  }

  async findByQuery<T extends AnyRecord>(
    _ctx: AgentContext,
    recordClass: BaseRecordConstructor<T>,
    query: Query<T>,
  ): Promise<T[]> {
    return [...this.records.entries()]
      .filter(([, stored]) => stored.type === recordClass.type && matches(stored.tags, query as QueryShape))
      .map(([id, stored]) => this.read(stored, id, recordClass))
  }
}

interface QueryShape {
  $and?: QueryShape[]
  $or?: QueryShape[]
  $not?: QueryShape
  [tag: string]: unknown
}

function matches(tags: TagsBase, query: QueryShape): boolean {
  const { $and, $or, $not, ...simple } = query
  if ($not !== undefined && matches(tags, $not)) return false
  if ($and && !$and.every((q) => matches(tags, q))) return false
  if ($or && !$or.some((q) => matches(tags, q))) return false
  return Object.entries(simple).every(([key, wanted]) => {
    if (wanted === undefined) return true
    const held = tags[key]
    if (Array.isArray(wanted)) return Array.isArray(held) && wanted.every((w) => held.includes(w))
    return held === wanted
  })
}

/** Registers the in-memory store as the agent's StorageService (modules: `{ storage: new MemoryStorageModule() }`). */
export class MemoryStorageModule implements Module {
  register(dependencyManager: DependencyManager): void {
    dependencyManager.registerInstance(InjectionSymbols.StorageService, new MemoryStorageService())
  }
}
