import {
  createECDH,
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  randomBytes,
  sign as nodeSign,
  timingSafeEqual,
  verify as nodeVerify,
  X509Certificate as NodeX509Certificate,
  type KeyObject,
} from 'node:crypto'
import { CoseKey, Header, KeyType, SignatureAlgorithm, type MdocContext, type Sign1 } from '@owf/mdoc'
import { X509Certificate } from '@peculiar/x509'
import { verifyDocumentSignerChain } from './mdoc-x509.js'

/** A COSE_Sign1 signer kept outside the library: signs the Sig_structure bytes, returns raw r||s (RFC 9053 §2.1). */
export type Sign1Signer = (toBeSigned: Uint8Array) => Promise<Uint8Array>

/** COSE algorithms (RFC 9053 §2.1, §2.2) with the hash and the one curve each is used with here. */
const ALGORITHMS = new Map<number, { hash: string | null; crv: string }>([
  [SignatureAlgorithm.ES256, { hash: 'sha256', crv: 'P-256' }],
  [SignatureAlgorithm.ES384, { hash: 'sha384', crv: 'P-384' }],
  [SignatureAlgorithm.ES512, { hash: 'sha512', crv: 'P-521' }],
  [SignatureAlgorithm.EdDSA, { hash: null, crv: 'Ed25519' }],
])

const DIGESTS = { 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' } as const

/** A COSE_Key (RFC 9052 §7) as a node KeyObject, through its JWK form (RFC 9053 §7.1 ↔ RFC 7518 §6.2). */
export function coseKeyToKeyObject(key: CoseKey, kind: 'public' | 'private'): KeyObject {
  const jwk = key.jwk as Record<string, string | undefined>
  const base = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(jwk.kty === 'EC' ? { y: jwk.y } : {}) }
  return kind === 'private'
    ? createPrivateKey({ key: { ...base, d: jwk.d }, format: 'jwk' })
    : createPublicKey({ key: base, format: 'jwk' })
}

/** The public COSE_Key of a node key (EC P-256/384/521 or Ed25519). */
export function keyObjectToCoseKey(key: KeyObject): CoseKey {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' })
  return CoseKey.fromJwk({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(jwk.y ? { y: jwk.y } : {}) })
}

function protectedAlgorithm(sign1: Sign1): number | undefined {
  const alg = sign1.protectedHeaders.headers?.get(Header.Algorithm)
  return typeof alg === 'number' ? alg : undefined
}

/** Signs a Sig_structure with a node private key: ECDSA as r||s (RFC 9053 §2.1), EdDSA (RFC 8032). */
export function keyObjectSigner(privateKey: KeyObject, algorithm: SignatureAlgorithm): Sign1Signer {
  const spec = ALGORITHMS.get(algorithm)
  if (!spec) throw new Error(`unsupported COSE algorithm ${algorithm}`)
  return (toBeSigned) =>
    new Promise((resolve, reject) =>
      nodeSign(spec.hash, toBeSigned, { key: privateKey, dsaEncoding: 'ieee-p1363' }, (err, sig) =>
        err ? reject(err) : resolve(new Uint8Array(sig)),
      ),
    )
}

/**
 * The crypto callbacks @owf/mdoc needs, on node:crypto and @peculiar/x509. `signer`, when given,
 * replaces the COSE_Sign1 signing callback so the private key never enters the library.
 */
export function createMdocContext(signer?: Sign1Signer): MdocContext {
  return {
    crypto: {
      random: (length) => new Uint8Array(randomBytes(length)),
      // ISO/IEC 18013-5 §9.1.2.5: value digests are SHA-256/384/512 over IssuerSignedItemBytes.
      digest: ({ digestAlgorithm, bytes }) =>
        new Uint8Array(createHash(DIGESTS[digestAlgorithm]).update(bytes).digest()),
      // ISO/IEC 18013-5 §9.1.3.5: EMacKey = HKDF-SHA-256(ECDH(ZAB), salt = SHA-256(SessionTranscriptBytes), info, 32).
      calculateEphemeralMacKey: ({ privateKey, publicKey, sessionTranscriptBytes, info }) => {
        const curve = privateKey.length === 32 ? 'prime256v1' : privateKey.length === 48 ? 'secp384r1' : 'secp521r1'
        const ecdh = createECDH(curve)
        ecdh.setPrivateKey(privateKey)
        const salt = createHash('sha256').update(sessionTranscriptBytes).digest()
        const k = new Uint8Array(hkdfSync('sha256', ecdh.computeSecret(publicKey), salt, info, 32))
        return CoseKey.create({ keyType: KeyType.Oct, k })
      },
    },
    cose: {
      sign1: {
        sign: ({ toBeSigned, key, algorithm }) => {
          if (signer) return signer(toBeSigned)
          return keyObjectSigner(coseKeyToKeyObject(key, 'private'), algorithm ?? SignatureAlgorithm.ES256)(toBeSigned)
        },
        // RFC 9052 §4.4: the signature is checked over Sig_structure with the algorithm of the protected header.
        verify: ({ key, sign1 }) => {
          const alg = protectedAlgorithm(sign1)
          const spec = alg === undefined ? undefined : ALGORITHMS.get(alg)
          if (!spec) return false
          let publicKey: KeyObject
          try {
            publicKey = coseKeyToKeyObject(key, 'public')
          } catch {
            return false
          }
          // RFC 9053 §2.1: each ECDSA algorithm is used here with its one curve only.
          if (publicKey.export({ format: 'jwk' }).crv !== spec.crv) return false
          return new Promise<boolean>((resolve) =>
            nodeVerify(
              spec.hash,
              sign1.toBeSigned,
              { key: publicKey, dsaEncoding: 'ieee-p1363' },
              sign1.signature,
              (err, ok) => resolve(!err && ok),
            ),
          )
        },
      },
      mac0: {
        // ISO/IEC 18013-5 §9.1.3.5: HMAC SHA-256 over the MAC_structure (RFC 9052 §6.3).
        sign: ({ key, toBeAuthenticated }) =>
          new Uint8Array(createHmac('sha256', key.privateKey).update(toBeAuthenticated).digest()),
        verify: ({ mac0, key }) => {
          const expected = createHmac('sha256', key.privateKey).update(mac0.toBeAuthenticated).digest()
          return expected.length === mac0.tag.length && timingSafeEqual(expected, mac0.tag)
        },
      },
    },
    x509: {
      getIssuerNameField: ({ certificate, field }) =>
        new X509Certificate(new Uint8Array(certificate)).issuerName.getField(field),
      getPublicKey: ({ certificate }) => keyObjectToCoseKey(new NodeX509Certificate(certificate).publicKey),
      verifyCertificateChain: async ({ trustedCertificates, x5chain, now }) => {
        await verifyDocumentSignerChain({ x5chain, trustAnchors: trustedCertificates, now: now ?? new Date() })
      },
      getCertificateData: async ({ certificate }) => {
        const cert = new X509Certificate(new Uint8Array(certificate))
        return {
          issuerName: cert.issuer,
          subjectName: cert.subject,
          serialNumber: cert.serialNumber,
          thumbprint: createHash('sha256').update(certificate).digest('hex'),
          notBefore: cert.notBefore,
          notAfter: cert.notAfter,
          pem: cert.toString('pem'),
        }
      },
    },
  }
}
