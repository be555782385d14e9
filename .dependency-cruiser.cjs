/* global module */
// Import rules of packages/core/src, checked by `pnpm lint:deps` (part of `pnpm lint`, so CI runs it):
// no import cycles, and each folder imports only the folders written next to it below. The folders
// stand on floors (docs/ARCHITECTURE.md "Floors"): a folder imports only folders on lower floors,
// which this file checks of its own table when it is loaded. A new import between two folders is
// a design decision: add it here (and to the architecture page, whose table is compared with this one).

/** Floors of core, ground first. A top-level file (`errors.ts`) is named without `.ts`. */
const FLOORS = [
  ['errors'],
  ['shared', 'time'],
  ['db'],
  ['auth', 'recurrence'],
  ['config'],
  ['api'],
  ['changes', 'posts'],
  ['http'],
  ['sync', 'terms'],
  ['linked'],
  ['openapi'],
  ['events'],
  ['ical'],
  ['calendar'],
  ['create-calendar'],
  ['calendars'],
  ['index', 'internal'],
]

/** What each folder may import besides itself (and packages). */
const MAY_IMPORT = {
  errors: [],
  shared: ['errors'],
  time: ['errors'],
  db: ['errors', 'shared'],
  auth: ['errors', 'shared', 'time', 'db'],
  recurrence: ['errors', 'time', 'db'],
  config: ['time', 'db', 'auth'],
  api: ['errors', 'time', 'db', 'auth', 'config'],
  changes: ['db', 'api'],
  posts: ['errors', 'shared', 'time', 'db', 'auth', 'config', 'api'],
  http: ['errors', 'time', 'db', 'auth', 'config', 'api', 'changes', 'posts'],
  sync: ['errors', 'shared', 'db', 'api', 'changes', 'http'],
  terms: ['errors', 'shared', 'db', 'auth', 'config', 'api', 'posts', 'http'],
  linked: ['errors', 'shared', 'time', 'db', 'auth', 'config', 'api', 'posts', 'http', 'sync'],
  openapi: ['errors', 'api', 'http', 'terms', 'linked'],
  events: ['errors', 'shared', 'time', 'db', 'auth', 'recurrence', 'config', 'api', 'changes', 'posts', 'http', 'sync', 'terms', 'linked', 'openapi'],
  ical: ['errors', 'shared', 'time', 'db', 'auth', 'recurrence', 'config', 'api', 'changes', 'posts', 'http', 'terms', 'linked', 'events'],
  calendar: ['errors', 'db', 'auth', 'config', 'api', 'http', 'terms', 'linked', 'openapi', 'events', 'ical'],
  'create-calendar': ['shared', 'db', 'recurrence', 'config', 'changes', 'http', 'events', 'calendar'],
  calendars: ['errors', 'shared', 'db', 'config', 'create-calendar'],
  index: ['errors', 'shared', 'db', 'auth', 'config', 'api', 'http', 'openapi', 'create-calendar', 'calendars'],
  internal: ['shared', 'db', 'http', 'events'],
}

/** Wings that others enter only through their face (`index.ts`). */
const FACES = ['recurrence']

const SRC = '^packages/core/src/'
const floorOf = new Map(FLOORS.flatMap((names, floor) => names.map((name) => [name, floor])))
for (const [from, targets] of Object.entries(MAY_IMPORT)) {
  if (!floorOf.has(from)) throw new Error(`.dependency-cruiser.cjs: ${from} stands on no floor`)
  for (const to of targets) {
    if (!(floorOf.get(to) < floorOf.get(from))) throw new Error(`.dependency-cruiser.cjs: ${from} may not import ${to}, which stands on the same floor or higher`)
  }
}
for (const name of floorOf.keys()) if (!MAY_IMPORT[name]) throw new Error(`.dependency-cruiser.cjs: ${name} has no MAY_IMPORT entry`)

/** The path of a folder (`db/…`) or top-level file (`errors.ts`) of core. */
const place = (name) => `${SRC}${name.replace(/[-.]/g, '\\$&')}(/|\\.ts$)`
const anyOf = (names) => `${SRC}(${names.map((n) => n.replace(/[-.]/g, '\\$&')).join('|')})(/|\\.ts$)`

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Core has no import cycles (type-only imports count too).',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'no-unknown-folder',
      severity: 'error',
      comment: 'Every folder and top-level file of core stands on a floor of .dependency-cruiser.cjs.',
      from: { path: SRC, pathNot: anyOf([...floorOf.keys()]) },
      to: {},
    },
    ...Object.entries(MAY_IMPORT).map(([from, targets]) => ({
      name: `folder-direction-${from}`,
      severity: 'error',
      comment: `${from} imports only ${targets.length > 0 ? targets.join(', ') : 'nothing else in core'} (docs/ARCHITECTURE.md).`,
      from: { path: place(from) },
      to: { path: SRC, pathNot: anyOf([from, ...targets]) },
    })),
    ...FACES.map((wing) => ({
      name: `${wing}-through-its-face`,
      severity: 'error',
      comment: `Outside ${wing}/, import only ${wing}/index.ts.`,
      from: { path: SRC, pathNot: place(wing) },
      to: { path: `${SRC}${wing}/`, pathNot: `${SRC}${wing}/index\\.ts$` },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: SRC,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'], conditionNames: ['source', 'import', 'default'] },
  },
}
// For scripts/check-architecture.mjs, which compares docs/ARCHITECTURE.md's table with these: not
// enumerable, since dependency-cruiser refuses keys of its configuration that it does not know.
Object.defineProperty(module.exports, 'floors', { value: FLOORS })
Object.defineProperty(module.exports, 'mayImport', { value: MAY_IMPORT })
Object.defineProperty(module.exports, 'faces', { value: FACES })
