/**
 * The SDK as a user gets it: `npm pack` of a copy of the package without its dist (so its prepack
 * builds it from the sources, and the repository's dist, which other tests' processes may be
 * reading, is left alone) into a temporary directory, the tarball unpacked into
 * `node_modules/@credential-service/sdk` of a new project outside the repository, and only its
 * declared dependencies linked from the repository's node_modules (no network: the registry is not
 * reached; a dependency missing from the package's `dependencies` cannot be found from there).
 */
import { spawn } from 'node:child_process'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { realpathSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const sdkDir = path.resolve(import.meta.dirname, '../..')
const repoModules = path.resolve(sdkDir, '../../node_modules')

export interface PackedSdk {
  /** The project directory: `import '@credential-service/sdk'` there finds the packed package. */
  project: string
  /** The unpacked package's directory. */
  packageDir: string
  /** The paths the tarball holds (relative to the package). */
  files: string[]
  remove(): Promise<void>
}

export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** A command with a minimal environment: no NODE_OPTIONS, no npm_* of the running `npm test`. */
export function run(
  command: string,
  args: string[],
  o: { cwd: string; env?: Record<string, string>; stdin?: string },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: o.cwd, env: plainEnv(o.env), stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(o.stdin ?? '')
  })
}

export function plainEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' }
  if (process.env.HOME) env.HOME = process.env.HOME
  return { ...env, ...extra }
}

export async function packSdk(): Promise<PackedSdk> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'sdk-pack-'))
  try {
    const copy = path.join(tmp, 'sdk')
    await cp(sdkDir, copy, {
      recursive: true,
      filter: (from) => !['dist', 'test', 'node_modules'].includes(path.relative(sdkDir, from).split(path.sep)[0]!),
    })
    // The build's TypeScript and the dependencies' types, as the repository installed them.
    await symlink(repoModules, path.join(copy, 'node_modules'), 'dir')
    const packed = await run('npm', ['pack', '--pack-destination', tmp, '--loglevel', 'error'], { cwd: copy })
    if (packed.code !== 0) throw new Error(`npm pack failed (${packed.code}): ${packed.stderr}`)
    const tarball = (await readdir(tmp)).find((f) => f.endsWith('.tgz'))
    if (!tarball) throw new Error(`npm pack made no tarball: ${packed.stdout}`)
    const listed = await run('tar', ['-tzf', path.join(tmp, tarball)], { cwd: tmp })
    const files = listed.stdout
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''))

    const project = path.join(tmp, 'project')
    const packageDir = path.join(project, 'node_modules/@credential-service/sdk')
    await mkdir(packageDir, { recursive: true })
    const unpacked = await run('tar', ['-xzf', path.join(tmp, tarball), '-C', packageDir, '--strip-components=1'], {
      cwd: tmp,
    })
    if (unpacked.code !== 0) throw new Error(`tar failed: ${unpacked.stderr}`)
    await writeFile(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }),
    )
    const manifest = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>
    }
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const link = path.join(project, 'node_modules', name)
      await mkdir(path.dirname(link), { recursive: true })
      await symlink(realpathSync(path.join(repoModules, name)), link, 'dir')
    }
    return { project, packageDir, files, remove: () => rm(tmp, { recursive: true, force: true }) }
  } catch (error) {
    await rm(tmp, { recursive: true, force: true })
    throw error
  }
}
