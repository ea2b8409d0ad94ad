import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'

export interface LocalTls {
  /** The CA certificate to trust (NODE_EXTRA_CA_CERTS). */
  caFile: string
  certFile: string
  keyFile: string
}

/**
 * A throw-away certificate authority and a server certificate for 127.0.0.1 and localhost, made
 * with the openssl command line (P-256, one day): what the W3C suites need to reach the service
 * over https on this machine, and nothing any other machine trusts.
 */
export function makeLocalTls(dir: string): LocalTls {
  const file = (name: string) => path.join(dir, name)
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=credential-service conformance CA',
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
  )
  openssl(
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  )
  writeFileSync(
    file('server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n',
  )
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  )
  return { caFile: file('ca.pem'), certFile: file('server.pem'), keyFile: file('server.key') }
}
