import { Type } from '@sinclair/typebox'

/** Request headers of a route that takes an Idempotency-Key (checked in full by parseIdempotencyKey). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'draft-ietf-httpapi-idempotency-key-header: an RFC 8941 String of 1–255 printable ASCII characters (an unquoted token is taken too), e.g. "8e03978e-40d5-43e8-bc93-6894a57f9324"',
    }),
  ),
})
