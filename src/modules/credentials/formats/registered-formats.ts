import type { Clock } from '../../../adapters/clock.js'
import type { HttpGet } from '../../../adapters/http-out/guarded-fetch.js'
import type { DocumentSigners } from '../../certificates/document-signer.js'
import type { DidResolver } from '../../did/did-resolver.js'
import { bbs2023Format } from './bbs-2023/bbs-2023.format.js'
import type { Bbs2023Engine } from './bbs-2023/bbs-2023-engine.js'
import { dataIntegrityVpKind } from './data-integrity/data-integrity-vp.presentation.js'
import { eddsaJcs2022Format, eddsaRdfc2022Format } from './data-integrity/eddsa.format.js'
import type { LocalDocuments } from './shared/document-loader.js'
import { dockBbsProofFormat, type DerivedProofVerifier } from './dock-bbs/dock-bbs-proof.format.js'
import { dockBbsProofKind } from './dock-bbs/dock-bbs-proof.presentation.js'
import { createFormatRegistry, type FormatRegistry } from './format-registry.js'
import { jwtVcJson } from './jwt-vc-json/jwt-vc-json.format.js'
import { deviceResponseKind } from './mdoc/device-response.presentation.js'
import { mdocFormat } from './mdoc/mdoc.format.js'
import { vpJwtKind } from './jwt-vc-json/vp-jwt.presentation.js'
import { sdJwtKbKind } from './sd-jwt-vc/sd-jwt-kb.presentation.js'
import { sdJwtVcFormat } from './sd-jwt-vc/sd-jwt-vc.format.js'
import { vcJose } from './vc-jose/vc-jose.format.js'

export { Bbs2023Pool, type Bbs2023Engine } from './bbs-2023/bbs-2023-engine.js'
// What the formats publish or check beside their credentials: SD-JWT VC Type Metadata (served at its `vct`), the Data Integrity VP.
export { typeMetadata } from './sd-jwt-vc/type-metadata.js'
// The format the OpenAPI document's issuance and offer examples name.
export { SD_JWT_VC } from './sd-jwt-vc/sd-jwt-vc-claims.js'
export { verifyDataIntegrityPresentation } from './data-integrity/data-integrity-presentation.js'
export type { DerivedProofCheck, DerivedProofVerifier } from './dock-bbs/dock-bbs-proof.format.js'
export type { LocalDocuments } from './shared/document-loader.js'

/** What the formats need from the rest of the service. */
export interface FormatDeps {
  resolver: DidResolver
  httpGet: HttpGet
  publicBaseUrl: string
  clock: Clock
  /** JSON-LD documents the service answers itself (its schemas' contexts). */
  local: LocalDocuments
  /** RDF canonicalization and IETF BBS off the event loop (bbs-2023). */
  bbs2023: Bbs2023Engine
  /** Checks a Dock BBS derived proof (presentation/derived-proof-verifier.ts). */
  derivedProofs: DerivedProofVerifier
  /** The issuers' X.509 Document Signers and IACA roots (mdoc). */
  documentSigners: DocumentSigners
}

/**
 * The one place the credential formats are registered (docs/formats.md): a new format is one
 * folder under formats/ and one line here. The most specific first, since the first that
 * recognizes an item reads it: Data Integrity documents (a proof of a named cryptosuite), typed
 * JOSE formats, then the plain JWT-VC they would also match. The kinds of presentation follow,
 * the spec's VP-JWT first (what a `presentation_jwt` no kind recognizes is read as).
 */
export function registeredFormats(deps: FormatDeps): FormatRegistry {
  const dataIntegrity = { local: deps.local, clock: deps.clock }
  const rdfc = eddsaRdfc2022Format(dataIntegrity)
  const sdJwtVc = sdJwtVcFormat({ resolver: deps.resolver, httpGet: deps.httpGet, publicBaseUrl: deps.publicBaseUrl })
  const dockBbsProof = dockBbsProofFormat(deps.derivedProofs)
  const mdoc = mdocFormat({ resolver: deps.resolver, documentSigners: deps.documentSigners })
  return createFormatRegistry(
    [
      rdfc,
      eddsaJcs2022Format(dataIntegrity),
      bbs2023Format({ engine: deps.bbs2023, local: deps.local }),
      sdJwtVc,
      vcJose,
      jwtVcJson,
      dockBbsProof,
      mdoc,
    ],
    {
      // What an issuance or offer naming no format is issued in: the JWT-VC issued before formats could be chosen.
      default: jwtVcJson,
      // The service's status lists: a vc+jwt, and a JSON-LD credential for Data Integrity verifiers (Bitstring Status List §2.2).
      statusLists: { jwt: vcJose, ld: rdfc },
      kinds: [
        vpJwtKind({ resolver: deps.resolver }),
        dataIntegrityVpKind({ resolver: deps.resolver, local: deps.local }),
        sdJwtKbKind({ resolver: deps.resolver, format: sdJwtVc }),
        dockBbsProofKind({ resolver: deps.resolver, format: dockBbsProof }),
        deviceResponseKind({ format: mdoc, documentSigners: deps.documentSigners }),
      ],
    },
  )
}
