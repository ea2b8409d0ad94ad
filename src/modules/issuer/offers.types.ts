import type { Selectable } from 'kysely'
import type { CredentialOffersTable } from './issuer.table.js'

/** A credential offer as stored (the issuer's offers; the OpenID4VCI module reads it too). */
export type OfferRow = Selectable<CredentialOffersTable>
