import { Agent, DidKey, Kms, type KeyDidCreateOptions, type W3cCredentialRecord } from '@credo-ts/core'
import { agentDependencies, NodeInMemoryKeyManagementStorage, NodeKeyManagementService } from '@credo-ts/node'
import { OpenId4VcModule } from '@credo-ts/openid4vc'
import { MemoryStorageModule } from './credo-storage.js'

function modules() {
  // @credo-ts/node's alpha brings its own copy of @credo-ts/core, so its class is another type to tsc; it is Core's KMS interface.
  const kms = new NodeKeyManagementService(
    new NodeInMemoryKeyManagementStorage(),
  ) as unknown as Kms.KeyManagementService
  return {
    storage: new MemoryStorageModule(),
    kms: new Kms.KeyManagementModule({ backends: [kms] }),
    openid4vc: new OpenId4VcModule(),
  }
}

/**
 * Credo 0.6 as an outside holder agent: Node's key management in memory, records in memory (no
 * Askar), its own DID resolvers (did:web fetched over HTTPS with web-did-resolver, did:key) and
 * its OpenID4VCI holder. The holder DID is a did:key of an Ed25519 key Credo made.
 */
export class CredoHolder {
  private constructor(
    readonly agent: Agent<ReturnType<typeof modules>>,
    readonly did: string,
    readonly kid: string,
  ) {}

  static async create(): Promise<CredoHolder> {
    const agent = new Agent({ config: {}, dependencies: agentDependencies, modules: modules() })
    await agent.initialize()
    const { keyId } = await agent.kms.createKey({ type: { kty: 'OKP', crv: 'Ed25519' } })
    const created = await agent.dids.create<KeyDidCreateOptions>({ method: 'key', options: { keyId } })
    const did = created.didState.did
    if (!did) throw new Error(`Credo made no did:key: ${JSON.stringify(created.didState)}`)
    return new CredoHolder(agent, did, `${did}#${DidKey.fromDid(did).publicJwk.fingerprint}`)
  }

  /**
   * Redeems a pre-authorized offer (OpenID4VCI 1.0 §6.1) the way a Credo wallet does: resolve the
   * offer and metadata, the token, then the credential with a proof by the holder's did:key. Credo
   * verifies each credential it receives (signature, issuer DID, the VCDM JWT mapping) before it
   * answers a record; the record is then stored as a wallet stores it.
   */
  async receive(offerUri: string, txCode?: string): Promise<W3cCredentialRecord> {
    // Credo's errors carry their message in a shape node:test's reporter prints as {}.
    return this.redeem(offerUri, txCode).catch((error: unknown) => {
      throw new Error(`Credo refused: ${error instanceof Error ? error.message : String(error)}`, { cause: error })
    })
  }

  private async redeem(offerUri: string, txCode?: string): Promise<W3cCredentialRecord> {
    const holder = this.agent.openid4vc.holder
    const resolvedCredentialOffer = await holder.resolveCredentialOffer(offerUri)
    const token = await holder.requestToken({ resolvedCredentialOffer, txCode })
    const response = await holder.requestCredentials({
      resolvedCredentialOffer,
      ...token,
      credentialBindingResolver: () => ({ method: 'did', didUrls: [this.kid] }),
    })
    const record = response.credentials[0]?.record
    if (!record || record.type !== 'W3cCredentialRecord')
      throw new Error(`Credo answered no W3C credential record: ${record?.type}`)
    return this.agent.w3cCredentials.store({ record: record as W3cCredentialRecord })
  }

  shutdown(): Promise<void> {
    return this.agent.shutdown()
  }
}
