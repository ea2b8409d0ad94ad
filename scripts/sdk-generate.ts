/** `npm run sdk:generate`: writes packages/sdk/src/generated/schema.ts (see scripts/lib/sdk-schema.ts). */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { generateSdkSchema, SCHEMA_FILE } from './lib/sdk-schema.js'

await mkdir(path.dirname(SCHEMA_FILE), { recursive: true })
await writeFile(SCHEMA_FILE, await generateSdkSchema())
console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}`)
