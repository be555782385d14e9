import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'

const DOC_ID = 'https://cal.invalid/openapi'

/**
 * Validates response bodies against the schemas an OpenAPI 3.1 document declares for a path,
 * method and status: what the service says about itself is checked against what it sends.
 */
export function responseValidator(document: any) {
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true })
  ;(addFormats as unknown as typeof addFormats.default)(ajv)
  ajv.addSchema({ $id: DOC_ID, components: document.components })
  const cache = new Map<string, ReturnType<typeof ajv.compile>>()
  return function check(path: string, method: string, status: number, body: unknown): string[] {
    const operation = document.paths?.[path]?.[method.toLowerCase()]
    if (!operation) return [`the document has no ${method} ${path}`]
    const response = operation.responses[String(status)] ?? operation.responses.default
    const schema = response?.content?.['application/json']?.schema
    if (!schema) return [`the document declares no JSON body for ${method} ${path} ${status}`]
    const key = `${path} ${method} ${status}`
    let validate = cache.get(key)
    if (!validate) {
      validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)))
      cache.set(key, validate)
    }
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${key}: ${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`)
  }
}
