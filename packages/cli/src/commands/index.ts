import type { CommandSpec } from '../args/command.js'
import { issuerCredentialCommands } from './issuer-credentials.js'
import { issuerProfileCommands } from './issuer-profile.js'
import { issuerRequestCommands } from './issuer-requests.js'
import { issuerSchemaCommands } from './issuer-schemas.js'
import { keysCommands, loginCommand } from './keys.js'
import { verifierCommands } from './verifier.js'
import { walletConsentCommands } from './wallet-consents.js'
import { walletCommands } from './wallet.js'

/** Every command of `cps`, in the order help lists them. */
export const COMMANDS: CommandSpec[] = [
  ...keysCommands,
  loginCommand,
  ...issuerProfileCommands,
  ...issuerSchemaCommands,
  ...issuerCredentialCommands,
  ...issuerRequestCommands,
  ...walletCommands,
  ...walletConsentCommands,
  ...verifierCommands,
]
