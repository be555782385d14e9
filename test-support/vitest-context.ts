declare module 'vitest' {
  export interface ProvidedContext {
    /** Unique id of this `vitest run`; every database the run creates carries it. */
    calRunId: string
    /** Port of the project's private PgBouncer (CAL_TEST_POOLER=pgbouncer), else 0. */
    calPgBouncerPort: number
  }
}
export {}
