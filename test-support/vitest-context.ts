declare module 'vitest' {
  export interface ProvidedContext {
    /** Unique id of this `vitest run`; every database the run creates carries it. */
    calRunId: string
  }
}
export {}
