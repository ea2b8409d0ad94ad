import type { OptionSpec } from './command.js'

/** Options every command takes; each also has an environment variable (see help). */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  'base-url': {
    type: 'string',
    value: '<url>',
    description: 'Service address (env CPS_BASE_URL; default http://127.0.0.1:3000)',
  },
  json: { type: 'boolean', description: "Print the service's JSON answer (for scripts); errors as JSON too" },
  'key-file': {
    type: 'string',
    value: '<path>',
    description: 'Key file (env CPS_KEY_FILE; default ~/.config/cps/keys.json)',
  },
  key: {
    type: 'string',
    value: '<name|did>',
    description: 'Which key of the key file acts (env CPS_KEY; default: the default key)',
  },
  'private-jwk': {
    type: 'string',
    value: '<json>',
    description: 'Act with this private JWK instead of the key file (env CPS_PRIVATE_JWK)',
  },
  help: { type: 'boolean', short: 'h', description: 'Show help' },
}

export interface GlobalSettings {
  baseUrl: string
  json: boolean
  keyFile: string
  key: string | undefined
  privateJwk: string | undefined
}
