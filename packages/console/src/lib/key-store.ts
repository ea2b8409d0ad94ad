import type { HolderKey } from '@credential-service/sdk'

/**
 * Each role's key pair, kept in this browser's IndexedDB. The private key is a non-extractable
 * WebCrypto CryptoKey (WebCrypto §"extractable"): IndexedDB stores the key object itself, and
 * no script, this one included, can read its bytes or send them anywhere.
 */
const DB_NAME = 'credential-service-console'
const STORE = 'keys'

export type Role = 'issuer' | 'holder' | 'verifier'

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1)
    request.onupgradeneeded = () => request.result.createObjectStore(STORE)
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error ?? new Error('IndexedDB cannot be opened'))
  })
}

async function run<T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest): Promise<T> {
  const db = await open()
  try {
    return await new Promise<T>((resolve, reject) => {
      const request = act(db.transaction(STORE, mode).objectStore(STORE))
      request.onsuccess = () => resolve(request.result as T)
      request.onerror = () => reject(request.error ?? new Error('IndexedDB request failed'))
    })
  } finally {
    db.close()
  }
}

export const loadKey = (role: Role) => run<HolderKey | undefined>('readonly', (s) => s.get(role))
export const saveKey = (role: Role, key: HolderKey) => run<unknown>('readwrite', (s) => s.put(key, role))
export const forgetKey = (role: Role) => run<unknown>('readwrite', (s) => s.delete(role))

/**
 * The P-256 device key the mdocs of a DID are bound to (ISO/IEC 18013-5 §9.1.2.4), kept beside
 * that DID's key in the same way. Named by the DID, so a new key of the role never inherits it.
 */
const deviceSlot = (did: string) => `device:${did}`
export const loadDeviceKey = (did: string) => run<HolderKey | undefined>('readonly', (s) => s.get(deviceSlot(did)))
/** Adds the device key unless one is kept already (IndexedDB `add` fails then): the first one made stays. */
export const addDeviceKey = (did: string, key: HolderKey) =>
  run<unknown>('readwrite', (s) => s.add(key, deviceSlot(did)))
export const forgetDeviceKey = (did: string) => run<unknown>('readwrite', (s) => s.delete(deviceSlot(did)))
