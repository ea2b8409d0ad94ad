/** Identifiers of the mdoc format; they stay in this folder (test/unit/format-fitness). */

/** OpenID4VCI 1.0 Appendix A.2 / OpenID4VP 1.0 Appendix B.2: the format identifier of an ISO mdoc. */
export const MSO_MDOC = 'mso_mdoc'

/** ISO/IEC 18013-5 §7.1: the mDL document type and its namespace. */
export const MDL_DOCTYPE = 'org.iso.18013.5.1.mDL'
export const MDL_NAMESPACE = 'org.iso.18013.5.1'

/** EU PID Rulebook (ARF Annex 3.01) §4: the PID document type, which is also its namespace. */
export const PID_DOCTYPE = 'eu.europa.ec.eudi.pid.1'
export const PID_NAMESPACE = 'eu.europa.ec.eudi.pid.1'

/** ISO/IEC 18013-5 Annex B.1.4: the extended key usage of a Document Signer certificate. */
export const DS_EXTENDED_KEY_USAGE = '1.0.18013.5.1.2'
