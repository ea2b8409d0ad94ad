/** A request_uri lives this long (RFC 9126 §2.2: short-lived; the wallet sends the user agent on at once). */
export const REQUEST_URI_TTL_S = 60

/** RFC 9126 §2: the pushed authorization request endpoint of a credential issuer (its own authorization server). */
export const parEndpointOf = (issuer: string): string => `${issuer}/oid4vci/par`

/** RFC 9126 §2.2: the URN prefix of a request_uri. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:'
