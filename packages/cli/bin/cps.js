#!/usr/bin/env node
// The CLI is TypeScript consumed from source (as the SDK is): tsx compiles it on load, so the
// repository needs no build step for `npx cps` to work.
import { register } from 'tsx/esm/api'

register()
await import('../src/main.ts')
