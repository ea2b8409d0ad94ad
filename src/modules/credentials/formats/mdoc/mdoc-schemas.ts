import { MDL_DOCTYPE, MDL_NAMESPACE, PID_DOCTYPE, PID_NAMESPACE } from './mdoc-ids.js'
import type { MdocDataType } from './mdoc-values.js'

/** A schema body of the issuer module (name, version, attributes) with where its elements live in an mdoc. */
export interface MdocSchemaDefinition {
  name: string
  version: string
  description: string
  attributes: Array<{ name: string; data_type: MdocDataType; required: boolean; description: string }>
  mdoc: { doctype: string; namespace: string }
}

/**
 * ISO/IEC 18013-5:2021 mDL: the mandatory data elements of Table 5 (§7.2.1) plus age_over_18 and
 * age_over_21 (age_over_NN, §7.2.5). issue_date / expiry_date are full-date here (Table 5 allows
 * tdate or full-date); driving_privileges is the array of §7.2.4.
 */
export const MDL_SCHEMA: MdocSchemaDefinition = {
  name: 'Mobile Driving Licence (ISO/IEC 18013-5)',
  version: '1.0',
  description: 'ISO/IEC 18013-5 mDL, doctype org.iso.18013.5.1.mDL',
  mdoc: { doctype: MDL_DOCTYPE, namespace: MDL_NAMESPACE },
  attributes: [
    {
      name: 'family_name',
      data_type: 'string',
      required: true,
      description: 'Last name, surname, or primary identifier',
    },
    {
      name: 'given_name',
      data_type: 'string',
      required: true,
      description: 'First name(s), other name(s), or secondary identifier',
    },
    {
      name: 'birth_date',
      data_type: 'date',
      required: true,
      description: 'Day, month and year on which the mDL holder was born',
    },
    { name: 'issue_date', data_type: 'date', required: true, description: 'Date when mDL was issued' },
    { name: 'expiry_date', data_type: 'date', required: true, description: 'Date when mDL expires' },
    {
      name: 'issuing_country',
      data_type: 'string',
      required: true,
      description: 'Alpha-2 country code (ISO 3166-1) of the issuing authority’s country',
    },
    { name: 'issuing_authority', data_type: 'string', required: true, description: 'Issuing authority name' },
    {
      name: 'document_number',
      data_type: 'string',
      required: true,
      description: 'The number assigned or calculated by the issuing authority',
    },
    {
      name: 'portrait',
      data_type: 'file',
      required: true,
      description: 'A reproduction of the mDL holder’s portrait (JPEG or JPEG2000)',
    },
    {
      name: 'driving_privileges',
      data_type: 'array',
      required: true,
      description: 'Driving privileges of the mDL holder (§7.2.4)',
    },
    {
      name: 'un_distinguishing_sign',
      data_type: 'string',
      required: true,
      description: 'Distinguishing sign of the issuing country (UN Convention on Road Traffic)',
    },
    {
      name: 'age_over_18',
      data_type: 'boolean',
      required: false,
      description: 'Whether the mDL holder is 18 or older',
    },
    {
      name: 'age_over_21',
      data_type: 'boolean',
      required: false,
      description: 'Whether the mDL holder is 21 or older',
    },
  ],
}

/**
 * EU Person Identification Data (PID Rulebook, ARF Annex 3.01 §2, mdoc encoding §4): the
 * mandatory attributes and administrative data, plus birth_place, nationality and age_over_18.
 * nationality is a string (alpha-2) as in the first rulebook versions; later versions make it an
 * array of alpha-2 codes.
 */
export const PID_SCHEMA: MdocSchemaDefinition = {
  name: 'EU Person Identification Data (PID)',
  version: '1.0',
  description: 'EU PID Rulebook, doctype eu.europa.ec.eudi.pid.1',
  mdoc: { doctype: PID_DOCTYPE, namespace: PID_NAMESPACE },
  attributes: [
    { name: 'family_name', data_type: 'string', required: true, description: 'Current last name(s) or surname(s)' },
    {
      name: 'given_name',
      data_type: 'string',
      required: true,
      description: 'Current first name(s), including middle name(s)',
    },
    {
      name: 'birth_date',
      data_type: 'date',
      required: true,
      description: 'Day, month and year on which the PID user was born',
    },
    {
      name: 'birth_place',
      data_type: 'string',
      required: true,
      description: 'The country, state and city where the PID user was born',
    },
    {
      name: 'nationality',
      data_type: 'string',
      required: true,
      description: 'Alpha-2 country code (ISO 3166-1) of a nationality of the PID user',
    },
    { name: 'age_over_18', data_type: 'boolean', required: false, description: 'Whether the PID user is 18 or older' },
    {
      name: 'issuing_authority',
      data_type: 'string',
      required: true,
      description: 'Name of the administrative authority that issued the PID',
    },
    {
      name: 'issuing_country',
      data_type: 'string',
      required: true,
      description: 'Alpha-2 country code (ISO 3166-1) of the issuing country',
    },
    {
      name: 'expiry_date',
      data_type: 'date',
      required: true,
      description: 'Date (and possibly time) when the PID will expire',
    },
    {
      name: 'issuance_date',
      data_type: 'date',
      required: false,
      description: 'Date (and possibly time) when the PID was issued',
    },
  ],
}

export const MDOC_SCHEMAS: readonly MdocSchemaDefinition[] = [MDL_SCHEMA, PID_SCHEMA]
