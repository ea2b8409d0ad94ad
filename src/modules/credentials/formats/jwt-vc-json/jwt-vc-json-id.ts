/** The format identifier of a VCDM 1.1 JWT-VC (OpenID4VCI Appendix A.1, OpenID4VP's name for it too). */
export const JWT_VC_JSON = 'jwt_vc_json'
