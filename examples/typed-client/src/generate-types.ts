import openapiTS, { astToString } from 'openapi-typescript'
import type { OpenApiDocument } from '@cal-events/core'

/** Header of the generated file; the test compares everything after it. */
export const GENERATED_HEADER =
  '// Generated from GET /cal/events/v1/doc (variant B) by `pnpm --filter @cal-events/example-typed-client generate`.\n' +
  '// Not committed: the typed-client test writes it from the live document before compiling the client.\n\n'

/** TypeScript types of an OpenAPI document, as openapi-typescript writes them. */
export async function typesOf(document: OpenApiDocument): Promise<string> {
  return GENERATED_HEADER + astToString(await openapiTS(document as never))
}
