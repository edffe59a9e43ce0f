#!/usr/bin/env node
// What a consumer gets, checked as a consumer gets it (STYLE.md "Packages and releases"):
//
//   1. pack every published package once (`pnpm pack`, so `prepack` builds and pnpm writes the
//      manifest it would publish: workspace: and catalog: ranges replaced, publishConfig applied);
//   2. check each packed manifest (no @toolhost/source condition, complete metadata, the files a
//      consumer needs), then publint and `attw --profile esm-only` on the tarball;
//   3. serve the tarballs from a loopback registry for the @toolhost scope, so installs resolve
//      internal dependencies exactly as they would from npm (never someone else's package);
//   4. one install of every README's install line into a fresh project outside the repository, and
//      one `npm install --global` of the CLI tarball into a fresh prefix;
//   5. typecheck (the strictest consumer settings: the repository's own) and run every package
//      README's TypeScript example as written, after checking that each import is on that README's
//      install line (under pnpm's strict layout an import that is not is a failure);
//   6. from the fresh prefix: `toolhost --help`, `--version`, `doctor`, `tools`, `call`, the CLI
//      README's smallest example as written, `replay examples/explore.jsonl` and `serve` through the
//      MCP SDK's client.
//
// Usage (after `pnpm build`, which fills turbo's cache so `prepack` is quick):
//   node scripts/consumer-check.mjs [--keep]        # --keep leaves the work directory in place
// Exit code 0 when every check passed; 1 with the failures listed otherwise.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const KEEP = process.argv.includes('--keep');
const STEP_TIMEOUT_MS = 10 * 60_000;
/** Provider keys never reach the examples or the CLI: nothing here talks to a real provider. */
const STRIPPED_ENV = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'NODE_OPTIONS',
];

/**
 * What each README example must show besides exiting 0, by package and example index (in README
 * order). An example not listed here only has to typecheck and exit 0.
 * @type {Record<string, Array<{ stdout?: RegExp; stderr?: RegExp } | undefined>>}
 */
const EXPECTATIONS = {
  '@toolhost/path-policy': [{ stderr: /^PATH_OUTSIDE_ROOT The path is outside the project root/ }],
  '@toolhost/contracts': [{ stdout: /"name":"echo"/ }],
  '@toolhost/read-evidence': [{ stdout: /^new$/m }],
  '@toolhost/jobs': [{ stdout: /^done 0\nbuilt$/m }],
  '@toolhost/provider-dialects': [{ stdout: /read_file \{"path":"package\.json"\}/ }],
  // Search finds the connected server's tools (before connecting there is nothing cached to rank).
  '@toolhost/capability-proxy': [{ stdout: /Best matches:[\s\S]*mcp-tool:memory\/create_entities/ }],
  '@toolhost/boot': [{ stdout: /^c1 ok /m }],
  '@toolhost/builtins': [
    { stdout: /src\/server\.ts:2: export const server = http\.createServer\(handler\);/ },
    { stdout: /let x = 2;/ },
    { stdout: /delete_symbol/ },
    { stdout: /definition/ },
    { stdout: /web_fetch/ },
  ],
};

const failures = [];
/** @param {string} message */
function fail(message) {
  failures.push(message);
  console.error(`  FAIL ${message}`);
}
/** @param {unknown} condition @param {string} message */
function check(condition, message) {
  if (!condition) fail(message);
}

/**
 * Runs a command to completion (asynchronously: the loopback registry answers from this process).
 * @param {string} command
 * @param {readonly string[]} args
 * @param {{ cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }} [options]
 * @returns {Promise<{ code: number | null; stdout: string; stderr: string }>}
 */
function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? STEP_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: signal ? null : code,
        stdout,
        stderr: signal ? `${stderr}\n(killed: ${signal})` : stderr,
      });
    });
    // A child that exits without reading its stdin (tar) closes the pipe first: not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** A clean environment for consumer processes: no provider keys, no NODE_OPTIONS, no colour. */
function consumerEnv(extra = {}) {
  const env = { ...process.env, NO_COLOR: '1', ...extra };
  for (const name of STRIPPED_ENV) delete env[name];
  // Nothing from the repository's pnpm or npm invocation leaks into the consumer's.
  for (const name of Object.keys(env)) if (/^(npm|pnpm)_/i.test(name)) delete env[name];
  return env;
}

/** @param {string} name @param {() => Promise<void>} body */
async function step(name, body) {
  const started = performance.now();
  console.error(`== ${name}`);
  try {
    await body();
  } catch (error) {
    fail(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  console.error(`   ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** The packages a release publishes: every non-private workspace package under packages/ and apps/. */
function publishedPackages() {
  const packages = [];
  for (const folder of ['packages', 'apps']) {
    for (const name of readdirSync(join(REPO, folder)).sort()) {
      const dir = join(REPO, folder, name);
      if (!existsSync(join(dir, 'package.json'))) continue;
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (manifest.private) continue;
      packages.push({
        dir,
        relativeDir: `${folder}/${name}`,
        name: manifest.name,
        version: manifest.version,
      });
    }
  }
  return packages;
}

/** The default catalog of pnpm-workspace.yaml (one `name: version` per line under `catalog:`). */
function catalogVersions() {
  const text = readFileSync(join(REPO, 'pnpm-workspace.yaml'), 'utf8');
  const block = /^catalog:\n((?:[ \t]+.*\n?)*)/m.exec(text)?.[1] ?? '';
  const versions = {};
  for (const line of block.split('\n')) {
    const match = /^\s+"?([^":\s]+)"?:\s*(\S+)/.exec(line);
    if (match) versions[match[1]] = match[2];
  }
  return versions;
}

/** Entry names of a tarball and one file's text. */
async function tarballEntries(tarball) {
  const listed = await run('tar', ['-tzf', tarball]);
  if (listed.code !== 0) throw new Error(`tar -tzf ${tarball}: ${listed.stderr}`);
  return listed.stdout.split('\n').filter(Boolean);
}
async function tarballFile(tarball, entry) {
  const read = await run('tar', ['-xzOf', tarball, entry]);
  if (read.code !== 0) throw new Error(`tar -xzOf ${tarball} ${entry}: ${read.stderr}`);
  return read.stdout;
}

/** Every value in a JSON tree that is an object key or a string. */
function* keysAndStrings(value) {
  if (typeof value === 'string') yield value;
  else if (Array.isArray(value)) for (const item of value) yield* keysAndStrings(item);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      yield key;
      yield* keysAndStrings(item);
    }
  }
}

/** The checks on one packed manifest and file list (what `pnpm publish` would upload). */
function checkPackedManifest(pkg, manifest, entries) {
  const where = `${pkg.name} (packed)`;
  const files = new Set(entries.map((entry) => entry.replace(/^package\//, '')));
  for (const text of keysAndStrings(manifest.exports ?? {}))
    check(!text.includes('@toolhost/source') && !text.includes('src/'), `${where}: exports mention ${text}`);
  // The scripts are the repository's development commands (tests run against the sources, so they
  // name the condition); pnpm keeps them as written and nothing resolves through them. Every other
  // field must be free of it.
  const { scripts: _scripts, ...resolved } = manifest;
  check(
    !JSON.stringify(resolved).includes('@toolhost/source'),
    `${where}: the source condition is in the manifest`,
  );
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {}))
      check(
        !/^(workspace|catalog):/.test(String(range)),
        `${where}: ${field}.${name} is ${range} (published with npm instead of pnpm?)`,
      );
  }
  check(manifest.license === 'MIT', `${where}: license is ${manifest.license}`);
  check(files.has('LICENSE'), `${where}: no LICENSE`);
  check(files.has('README.md'), `${where}: no README.md`);
  check(files.has('CHANGELOG.md'), `${where}: no CHANGELOG.md`);
  check(
    manifest.repository?.type === 'git' &&
      /^git\+https:\/\/github\.com\/.+\.git$/.test(manifest.repository?.url ?? '') &&
      manifest.repository?.directory === pkg.relativeDir,
    `${where}: repository must be git+https://github.com/... with directory ${pkg.relativeDir}`,
  );
  check(
    typeof manifest.homepage === 'string' && manifest.homepage.startsWith('https://'),
    `${where}: homepage`,
  );
  check(
    typeof manifest.bugs?.url === 'string' && manifest.bugs.url.startsWith('https://'),
    `${where}: bugs.url`,
  );
  check(manifest.publishConfig?.access === 'public', `${where}: publishConfig.access is not public`);
  check(manifest.publishConfig?.provenance === true, `${where}: publishConfig.provenance is not true`);
  check(manifest.exports?.['./package.json'] === './package.json', `${where}: no ./package.json export`);
  check(
    Array.isArray(manifest.files) && manifest.files.includes('dist'),
    `${where}: files does not list dist`,
  );
  check(
    manifest.type === 'module' && manifest.sideEffects === false,
    `${where}: type module, sideEffects false`,
  );
  check(
    files.has('dist/index.js') && files.has('dist/index.d.ts'),
    `${where}: dist/index.js and .d.ts missing`,
  );
  check(!entries.some((entry) => /\/(src|test)\//.test(entry)), `${where}: ships src/ or test/`);
  if (manifest.bin) {
    for (const [command, file] of Object.entries(manifest.bin))
      check(files.has(file.replace(/^\.\//, '')), `${where}: bin ${command} → ${file} is not packed`);
    // The example the READMEs replay ships with the command.
    check(files.has('examples/explore.jsonl'), `${where}: examples/explore.jsonl is not packed`);
  }
}

/**
 * A loopback registry for the @toolhost scope (and the unscoped CLI name): packuments built from the
 * packed manifests, tarballs served as packed. Any other name is a 404, so nothing of ours is ever
 * fetched from the public registry.
 */
async function startRegistry(packed) {
  const byName = new Map();
  const byFile = new Map();
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname.slice(1));
    if (path.startsWith('-/')) {
      const entry = byFile.get(path.slice(2));
      if (!entry) return response.writeHead(404).end();
      response.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': entry.bytes.length,
      });
      return response.end(entry.bytes);
    }
    const entry = byName.get(path);
    if (!entry) {
      response.writeHead(404, { 'content-type': 'application/json' });
      return response.end('{"error":"not found"}');
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(entry.packument));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  for (const { manifest, tarball } of packed) {
    const bytes = readFileSync(tarball);
    const file = basename(tarball);
    byFile.set(file, { bytes });
    byName.set(manifest.name, {
      packument: {
        name: manifest.name,
        'dist-tags': { latest: manifest.version },
        versions: {
          [manifest.version]: {
            ...manifest,
            _id: `${manifest.name}@${manifest.version}`,
            dist: {
              tarball: `${url}-/${file}`,
              shasum: createHash('sha1').update(bytes).digest('hex'),
              integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
            },
          },
        },
      },
    });
  }
  return { url, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * A README's install line (the `pnpm add` / `npm install` line of the block after "## Install") and
 * its code blocks: TypeScript programs and the shell block of "## Smallest example".
 */
function readmeParts(pkg) {
  const readme = readFileSync(join(pkg.dir, 'README.md'), 'utf8');
  const install = /^## Install\n+```sh\n([\s\S]*?)```/m.exec(readme)?.[1] ?? '';
  const installed = new Set();
  for (const line of install.split('\n')) {
    const words = line.replace(/#.*/, '').trim().split(/\s+/);
    const at =
      words[0] === 'pnpm' && words[1] === 'add' ? 2 : words[0] === 'npm' && words[1] === 'install' ? 2 : -1;
    if (at < 0) continue;
    for (const word of words.slice(at)) if (!word.startsWith('-')) installed.add(word);
  }
  const examples = [...readme.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((match) => match[1]);
  const shell = /^## Smallest example\n+```sh\n([\s\S]*?)```/m.exec(readme)?.[1];
  return { installed, examples, shell, hasInstall: install.length > 0 };
}

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`). */
function packageOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const packages = publishedPackages();
const catalog = catalogVersions();
const work = mkdtempSync(join(tmpdir(), 'toolhost-consumer-'));
const tarballDir = join(work, 'tarballs');
const project = join(work, 'project');
const prefix = join(work, 'prefix');
const userProject = join(work, 'user-project');
for (const dir of [tarballDir, project, prefix, userProject]) mkdirSync(dir, { recursive: true });
console.error(`consumer check in ${work} (${packages.length} packages)`);

/** @type {Array<{ pkg: ReturnType<typeof publishedPackages>[number]; tarball: string; manifest: any; entries: string[] }>} */
const packed = [];
let registry;
const started = performance.now();
try {
  await step('pack every published package (prepack builds)', async () => {
    // One package packed without its dist, as from a fresh clone: prepack must build it, never an
    // empty package (turbo's cache makes that cheap after `pnpm build`).
    const unbuilt = packages.find((pkg) => pkg.name === '@toolhost/path-policy') ?? packages[0];
    if (unbuilt) rmSync(join(unbuilt.dir, 'dist'), { recursive: true, force: true });
    const filters = packages.flatMap((pkg) => ['--filter', pkg.name]);
    const result = await run('pnpm', ['-r', ...filters, 'pack', '--pack-destination', tarballDir]);
    if (result.code !== 0) throw new Error(`pnpm pack failed:\n${result.stdout}\n${result.stderr}`);
    for (const file of readdirSync(tarballDir).filter((name) => name.endsWith('.tgz'))) {
      const tarball = join(tarballDir, file);
      const entries = await tarballEntries(tarball);
      const manifest = JSON.parse(await tarballFile(tarball, 'package/package.json'));
      const pkg = packages.find((candidate) => candidate.name === manifest.name);
      if (pkg) packed.push({ pkg, tarball, manifest, entries });
    }
    check(packed.length === packages.length, `packed ${packed.length} of ${packages.length} packages`);
  });

  await step('packed manifests, publint and attw --profile esm-only', async () => {
    const { publint } = await import('publint');
    const { formatMessage } = await import('publint/utils');
    for (const { pkg, tarball, manifest, entries } of packed) {
      checkPackedManifest(pkg, manifest, entries);
      // @toolhost/internal is private: bundled at build time, never a dependency, never imported.
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'])
        check(!manifest[field]?.['@toolhost/internal'], `${pkg.name}: ${field} names @toolhost/internal`);
      const built = entries.filter((name) => /^package\/dist\/.+\.(js|d\.ts)$/.test(name));
      const builtText = await run('tar', ['-xzOf', tarball, ...built]);
      check(builtText.code === 0, `${pkg.name}: tar could not read its dist files`);
      check(
        !builtText.stdout.includes('@toolhost/internal'),
        `${pkg.name}: a dist file names the private @toolhost/internal`,
      );
      const bytes = readFileSync(tarball);
      const linted = await publint({
        pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) },
        level: 'suggestion',
        strict: true,
      });
      for (const message of linted.messages)
        fail(`${pkg.name}: publint ${message.type}: ${formatMessage(message, linted.pkg) ?? message.code}`);
    }
    const attw = join(REPO, 'node_modules', '.bin', 'attw');
    // Two at a time: each loads its own TypeScript.
    const queue = [...packed];
    await Promise.all(
      [0, 1].map(async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const result = await run(attw, [
            next.tarball,
            '--profile',
            'esm-only',
            '--format',
            'ascii',
            '--no-color',
            '--no-definitely-typed',
          ]);
          if (result.code !== 0)
            fail(`${next.pkg.name}: attw --profile esm-only:\n${result.stdout}${result.stderr}`);
        }
      }),
    );
  });

  registry = await startRegistry(packed);
  const registryFlag = `--@toolhost:registry=${registry.url}`;
  const cli = packed.find((entry) => entry.manifest.bin?.toolhost);
  const readmes = packed.map((entry) => ({ ...entry, ...readmeParts(entry.pkg) }));

  await step('README install lines and imports', async () => {
    for (const { pkg, installed, examples, hasInstall } of readmes) {
      check(hasInstall, `${pkg.name}: README has no "## Install" block`);
      if (pkg.name === 'toolhost') {
        check(installed.has('toolhost'), 'toolhost: README install is not `npm install -g toolhost`');
        continue;
      }
      check(installed.has(pkg.name), `${pkg.name}: README install line does not install ${pkg.name}`);
      check(examples.length > 0, `${pkg.name}: README has no TypeScript example`);
      examples.forEach((example, index) => {
        const specifiers = [
          ...example.matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm),
          ...example.matchAll(/import\('([^']+)'\)/g),
        ].map((match) => match[1]);
        for (const specifier of specifiers) {
          if (specifier.startsWith('node:')) continue;
          check(
            installed.has(packageOf(specifier)),
            `${pkg.name}: README example ${index + 1} imports ${specifier}, which its install line does not add`,
          );
        }
      });
    }
  });

  await step('install: README install lines into a fresh project, the CLI into a fresh prefix', async () => {
    const wanted = new Set();
    for (const { pkg, installed } of readmes)
      if (pkg.name !== 'toolhost') for (const name of installed) wanted.add(name);
    // What the examples need to typecheck and run, and the MCP client that talks to `toolhost serve`.
    const tools = ['typescript', 'tsx', '@types/node', '@modelcontextprotocol/sdk'].map(
      (name) => `${name}@${catalog[name] ?? 'latest'}`,
    );
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'toolhost-consumer', version: '0.0.0', private: true, type: 'module' }, null, 2)}\n`,
    );
    // pnpm 12 asks for a decision on install scripts: esbuild (tsx) ships its binary as an optional package.
    writeFileSync(
      join(project, 'pnpm-workspace.yaml'),
      'allowBuilds:\n  esbuild: false\n  protobufjs: false\n',
    );
    writeFileSync(join(project, '.npmrc'), `@toolhost:registry=${registry.url}\n`);
    const [projectInstall, prefixInstall] = await Promise.all([
      run('pnpm', ['add', ...wanted, ...tools], { cwd: project, env: consumerEnv() }),
      cli
        ? run(
            'npm',
            [
              'install',
              '--global',
              '--prefix',
              prefix,
              registryFlag,
              '--no-audit',
              '--no-fund',
              '--loglevel=error',
              cli.tarball,
            ],
            { cwd: userProject, env: consumerEnv() },
          )
        : Promise.resolve({ code: 1, stdout: '', stderr: 'no package has a toolhost bin' }),
    ]);
    if (projectInstall.code !== 0)
      throw new Error(`pnpm add failed:\n${projectInstall.stdout}\n${projectInstall.stderr}`);
    if (prefixInstall.code !== 0) throw new Error(`npm install --global failed:\n${prefixInstall.stderr}`);
    // The internal dependencies came from the tarballs (the loopback registry), nothing else.
    const lock = readFileSync(join(project, 'pnpm-lock.yaml'), 'utf8');
    for (const { manifest } of packed)
      if (manifest.name !== 'toolhost')
        check(
          lock.includes(`${manifest.name}@${manifest.version}`),
          `project lock has no ${manifest.name}@${manifest.version}`,
        );
  });

  await step(
    'README examples: typecheck as written (strict, exactOptionalPropertyTypes) and run',
    async () => {
      const dir = join(project, 'examples');
      mkdirSync(dir, { recursive: true });
      /** @type {Array<{ name: string; file: string; expect: { stdout?: RegExp; stderr?: RegExp } | undefined }>} */
      const scripts = [];
      for (const { pkg, examples } of readmes) {
        if (pkg.name === 'toolhost') continue;
        examples.forEach((example, index) => {
          const file = join(dir, `${pkg.name.replace(/^@toolhost\//, '')}-${index + 1}.ts`);
          writeFileSync(file, example);
          scripts.push({
            name: `${pkg.name} example ${index + 1}`,
            file,
            expect: EXPECTATIONS[pkg.name]?.[index],
          });
        });
      }
      writeFileSync(
        join(project, 'tsconfig.json'),
        `${JSON.stringify(
          {
            compilerOptions: {
              target: 'ES2022',
              lib: ['ES2023'],
              module: 'NodeNext',
              moduleResolution: 'NodeNext',
              types: ['node'],
              strict: true,
              noUncheckedIndexedAccess: true,
              exactOptionalPropertyTypes: true,
              verbatimModuleSyntax: true,
              isolatedModules: true,
              noEmit: true,
            },
            include: ['examples'],
          },
          null,
          2,
        )}\n`,
      );
      const typecheck = await run(join(project, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json'], {
        cwd: project,
      });
      if (typecheck.code !== 0)
        fail(`the README examples do not typecheck:\n${typecheck.stdout}${typecheck.stderr}`);
      for (const script of scripts) {
        // Each example runs from the consumer project's directory, as a user who pasted it would.
        const result = await run(process.execPath, ['--import', 'tsx', script.file], {
          cwd: project,
          env: consumerEnv(),
          timeoutMs: 180_000,
        });
        const shown = `${relative(project, script.file)}: exit ${result.code}\n${result.stdout}${result.stderr}`;
        if (result.code !== 0) {
          fail(`${script.name} failed: ${shown}`);
          continue;
        }
        if (script.expect?.stdout)
          check(
            script.expect.stdout.test(result.stdout),
            `${script.name}: stdout does not match ${script.expect.stdout}: ${shown}`,
          );
        if (script.expect?.stderr)
          check(
            script.expect.stderr.test(result.stderr),
            `${script.name}: stderr does not match ${script.expect.stderr}: ${shown}`,
          );
      }
    },
  );

  await step(
    'the CLI from the fresh prefix: --help, --version, doctor, tools, call, the README example, replay',
    async () => {
      if (!cli) throw new Error('no CLI tarball');
      const bin = join(prefix, 'bin', 'toolhost');
      const env = consumerEnv({
        PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
        TOOLHOST_CONFIG_DIR: join(work, 'user-config'),
      });
      writeFileSync(
        join(userProject, 'README.md'),
        '# my project\n\nA project of a user who installed toolhost.\n',
      );
      const help = await run(bin, ['--help'], { cwd: userProject, env });
      check(
        help.code === 0 && /^Usage: toolhost <command>/m.test(help.stdout),
        `toolhost --help: ${help.code} ${help.stderr}`,
      );
      check(/^ {2}doctor /m.test(help.stdout), 'toolhost --help does not list doctor');
      const version = await run(bin, ['--version'], { cwd: userProject, env });
      check(
        version.stdout.trim() === cli.manifest.version,
        `toolhost --version printed ${version.stdout.trim()}`,
      );
      const doctor = await run(bin, ['doctor', '--json'], { cwd: userProject, env });
      let report;
      try {
        report = JSON.parse(doctor.stdout);
      } catch {
        fail(`toolhost doctor --json printed no JSON: ${doctor.code} ${doctor.stdout}${doctor.stderr}`);
      }
      if (report) {
        check(
          doctor.code === (report.ok ? 0 : 1),
          `toolhost doctor exit ${doctor.code} with ok ${report.ok}`,
        );
        const names = report.checks.map((entry) => entry.name);
        for (const name of ['node', 'git', 'rg', 'bwrap'])
          check(
            process.platform !== 'linux' || names.includes(name),
            `toolhost doctor does not check ${name}`,
          );
        console.error(
          `   doctor: ${report.checks.map((entry) => `${entry.name} ${entry.status}`).join(', ')}`,
        );
      }
      const tools = await run(bin, ['tools', '--json'], { cwd: userProject, env });
      check(tools.code === 0, `toolhost tools --json: ${tools.code} ${tools.stderr}`);
      if (tools.code === 0) {
        const surface = JSON.parse(tools.stdout);
        check(
          surface.tools.some((tool) => tool.name === 'read_file') &&
            /^[0-9a-f]{16}$/.test(surface.fingerprint),
          'toolhost tools --json has no read_file or fingerprint',
        );
      }
      const call = await run(bin, ['call', 'read_file', '{"path":"README.md"}'], { cwd: userProject, env });
      check(
        call.code === 0 && call.stdout.includes('A project of a user'),
        `toolhost call read_file: ${call.code} ${call.stdout}${call.stderr}`,
      );
      const refused = await run(bin, ['call', 'read_file', '{"path":"../outside.txt"}'], {
        cwd: userProject,
        env,
      });
      check(
        refused.code === 1 && /^PATH_OUTSIDE_ROOT/.test(refused.stdout),
        `toolhost call outside the root: ${refused.code} ${refused.stdout}`,
      );
      const { shell } = readmes.find((entry) => entry.pkg.name === 'toolhost') ?? {};
      check(shell, 'the CLI README has no "## Smallest example" shell block');
      if (shell) {
        const example = await run('bash', ['-euo', 'pipefail', '-c', shell], { cwd: userProject, env });
        check(
          example.code === 0,
          `the CLI README's smallest example failed: ${example.code}\n${example.stdout}${example.stderr}`,
        );
        check(
          /no outcome changed/.test(example.stdout),
          `the CLI README's example did not replay the example: ${example.stdout}`,
        );
      }
      const replay = await run(bin, ['replay', 'examples/explore.jsonl', '--json'], {
        cwd: userProject,
        env,
      });
      check(
        replay.code === 0,
        `toolhost replay examples/explore.jsonl: ${replay.code} ${replay.stdout}${replay.stderr}`,
      );
      if (replay.code === 0) {
        const summary = JSON.parse(replay.stdout.trim().split('\n').pop() ?? '{}');
        check(summary.calls >= 6 && summary.changed === 0, `replay summary: ${JSON.stringify(summary)}`);
      }
    },
  );

  await step('toolhost serve through the MCP SDK client', async () => {
    const client = join(project, 'mcp-client.mjs');
    writeFileSync(
      client,
      `import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
const [bin, root] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: bin, args: ['serve', '--root', root], env: { ...process.env }, stderr: 'inherit' });
const client = new Client({ name: 'consumer-check', version: '1.0.0' });
await client.connect(transport);
const { tools } = await client.listTools();
const read = await client.callTool({ name: 'read_file', arguments: { path: 'README.md' } });
const outside = await client.callTool({ name: 'read_file', arguments: { path: '../x' } });
console.log(JSON.stringify({
  server: client.getServerVersion(),
  tools: tools.map((tool) => ({ name: tool.name, readOnlyHint: tool.annotations?.readOnlyHint })),
  read: { isError: read.isError ?? false, text: read.content[0]?.text },
  outside: { isError: outside.isError ?? false, text: outside.content[0]?.text },
}));
await client.close();
`,
    );
    const env = consumerEnv({ TOOLHOST_CONFIG_DIR: join(work, 'user-config') });
    const result = await run(process.execPath, [client, join(prefix, 'bin', 'toolhost'), userProject], {
      cwd: project,
      env,
      timeoutMs: 180_000,
    });
    if (result.code !== 0)
      throw new Error(`the MCP client failed: ${result.code}\n${result.stdout}${result.stderr}`);
    const seen = JSON.parse(result.stdout);
    check(seen.server?.name === 'toolhost', `serve: server name ${seen.server?.name}`);
    const read = seen.tools.find((tool) => tool.name === 'read_file');
    check(read?.readOnlyHint === true, 'serve: read_file is not listed with readOnlyHint');
    check(
      !seen.read.isError && seen.read.text.includes('A project of a user'),
      `serve: read_file: ${JSON.stringify(seen.read)}`,
    );
    check(
      seen.outside.isError && /^PATH_OUTSIDE_ROOT/.test(seen.outside.text),
      `serve: outside the root: ${JSON.stringify(seen.outside)}`,
    );
  });
} finally {
  await registry?.close();
  if (KEEP || failures.length > 0) console.error(`work directory kept: ${work}`);
  else rmSync(work, { recursive: true, force: true });
}

const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (failures.length > 0) {
  console.error(`\nconsumer check: ${failures.length} failure(s) in ${seconds} s`);
  process.exit(1);
}
console.error(`\nconsumer check: every check passed in ${seconds} s`);
