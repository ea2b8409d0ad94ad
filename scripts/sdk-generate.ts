/** `npm run sdk:generate`: writes packages/sdk/src/generated/ (see scripts/lib/sdk-schema.ts). */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { generateSdkSchema, KEYED_ROUTES_FILE, SCHEMA_FILE } from './lib/sdk-schema.js'

const { schema, keyedRoutes } = await generateSdkSchema()
await mkdir(path.dirname(SCHEMA_FILE), { recursive: true })
for (const [file, text] of [
  [SCHEMA_FILE, schema],
  [KEYED_ROUTES_FILE, keyedRoutes],
] as const) {
  await writeFile(file, text)
  console.log(`wrote ${path.relative(process.cwd(), file)}`)
}
