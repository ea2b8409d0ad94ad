import { Type } from '@sinclair/typebox'

/**
 * A JWK in a request body (RFC 7517 §4; EC and OKP members, RFC 7518 §6.2, RFC 8037 §2; RSA, RFC
 * 7518 §6.3.1), each member bounded. `d` stays visible so a service can refuse a private key by
 * name; any other member is dropped with the other undeclared ones.
 */
export const JwkSchema = Type.Object(
  {
    kty: Type.String({ minLength: 1, maxLength: 10 }),
    crv: Type.Optional(Type.String({ maxLength: 20 })),
    x: Type.Optional(Type.String({ maxLength: 256 })),
    y: Type.Optional(Type.String({ maxLength: 256 })),
    n: Type.Optional(Type.String({ maxLength: 2048 })),
    e: Type.Optional(Type.String({ maxLength: 16 })),
    d: Type.Optional(Type.String({ maxLength: 2048 })),
    kid: Type.Optional(Type.String({ maxLength: 256 })),
    alg: Type.Optional(Type.String({ maxLength: 50 })),
    use: Type.Optional(Type.String({ maxLength: 10 })),
  },
  { additionalProperties: false },
)
