import { randomUUID } from 'node:crypto'
import type { Clock } from '../../adapters/clock.js'
import type { Database } from '../../db/database.js'
import { NotFoundError, ValidationError } from '../../errors.js'
import type { FormatRegistry } from '../credentials/formats/format-registry.js'
import { withClaim, type ClaimKey } from '../idempotency/idempotency.service.js'
import type { AttributeValidators } from './attribute-validator.js'
import type { IssuerService } from './issuer.service.js'
import * as templates from './templates.repository.js'

export interface TemplateInput {
  name: string
  description?: string
  credential_type: string
  schema_id: string
  fixed_attributes?: Record<string, unknown>
  validity_days?: number | null
  format?: string | null
}

/** Templates pre-fill issuance: type, schema, fixed attribute values, validity. */
export class TemplateService {
  constructor(
    private readonly deps: {
      db: Database
      issuers: IssuerService
      validators: AttributeValidators
      clock: Clock
      formats: FormatRegistry
    },
  ) {}

  /** `claim` (an Idempotency-Key) is recorded in the template's transaction, for its id. */
  async create(issuerDid: string, input: TemplateInput, claim?: ClaimKey): Promise<templates.TemplateRow> {
    await this.deps.issuers.profile(issuerDid)
    await this.checkAgainstSchema(issuerDid, input.schema_id, input.fixed_attributes ?? {})
    if (input.format != null) this.deps.formats.issuable(input.format)
    const id = `template-${randomUUID()}`
    return withClaim(this.deps.db, claim, id, (db) =>
      templates.insertTemplate(db, {
        id,
        issuer_did: issuerDid,
        name: input.name,
        description: input.description ?? '',
        credential_type: input.credential_type,
        schema_id: input.schema_id,
        fixed_attributes: input.fixed_attributes ?? {},
        validity_days: input.validity_days ?? null,
        format: input.format ?? null,
      }),
    )
  }

  async get(issuerDid: string, id: string): Promise<templates.TemplateRow> {
    const found = await templates.findTemplate(this.deps.db, issuerDid, id)
    if (!found) throw new NotFoundError('Template not found')
    return found
  }

  list(issuerDid: string, page: { limit: number; after?: string }): Promise<templates.TemplateRow[]> {
    return templates.listTemplates(this.deps.db, issuerDid, page)
  }

  async update(issuerDid: string, id: string, patch: Partial<TemplateInput>): Promise<templates.TemplateRow> {
    const current = await this.get(issuerDid, id)
    const schemaId = patch.schema_id ?? current.schema_id
    await this.checkAgainstSchema(issuerDid, schemaId, patch.fixed_attributes ?? current.fixed_attributes)
    if (patch.format != null) this.deps.formats.issuable(patch.format)
    const updated = await templates.updateTemplate(this.deps.db, issuerDid, id, patch, this.deps.clock.now())
    if (!updated) throw new NotFoundError('Template not found')
    return updated
  }

  async delete(issuerDid: string, id: string): Promise<void> {
    if (!(await templates.deleteTemplate(this.deps.db, issuerDid, id))) throw new NotFoundError('Template not found')
  }

  private async checkAgainstSchema(issuerDid: string, schemaId: string, fixed: Record<string, unknown>): Promise<void> {
    const schema = await this.deps.issuers.schema(issuerDid, schemaId)
    this.deps.validators.check(schema, fixed, true)
  }
}

/**
 * The format of an issuance (or offer) from a template: a template that fixes one gives it, and
 * naming another is refused (as a fixed attribute is); otherwise the one named, if any.
 */
export function formatOfTemplate(fixed: string | null, named: string | null, templateId: string): string | null {
  if (fixed === null) return named
  if (named !== null && named !== fixed)
    throw new ValidationError(`format "${named}" differs from "${fixed}", fixed by template "${templateId}"`, {
      details: { field: 'format' },
    })
  return fixed
}
