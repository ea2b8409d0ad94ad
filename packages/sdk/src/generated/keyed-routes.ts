// Generated from the service's OpenAPI document (/api/docs/json): do not edit. Regenerate with `npm run sdk:generate`.

/** POST routes that take an Idempotency-Key (draft-ietf-httpapi-idempotency-key-header), as OpenAPI path templates. */
export const KEYED_POST_ROUTES: readonly string[] = [
  '/api/issuer/{did}/issue',
]
