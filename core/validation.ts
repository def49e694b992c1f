import Ajv2020Module, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv and ajv-formats are CommonJS with a `default` export property.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as unknown as typeof Ajv2020Module.default;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (ajv: unknown) => void;
import type { ErrorDetail } from './errors.ts';
import { validationError } from './errors.ts';
import type { JsonSchema } from './plugin.ts';

/** `$id` of the document holding every component schema; `#/components/schemas/X` refs resolve in it. */
export const COMPONENTS_ID = 'https://fitroom.dev/schemas/openapi.json';

/**
 * Compiles the published component schemas once with ajv (draft 2020-12, as OpenAPI 3.1 uses) and
 * turns ajv errors into the spec's VALIDATION_ERROR details.
 */
export class SchemaValidator {
  private readonly ajv: InstanceType<typeof Ajv2020Module.default>;
  private readonly cache = new Map<string | JsonSchema, ValidateFunction>();

  constructor(components: Record<string, JsonSchema>) {
    this.ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true, verbose: true });
    // minLength/maxLength count UTF-16 units (string.length), not code points: ajv's code-point count
    // walks every character in JavaScript, 45 ms on the event loop for one 9 MB data URL. Set after
    // construction: the option still works but is reported as deprecated when passed.
    (this.ajv.opts as { unicode?: boolean }).unicode = false;
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: COMPONENTS_ID, components: { schemas: components } });
  }

  private compile(schema: string | JsonSchema): ValidateFunction {
    let fn = this.cache.get(schema);
    if (!fn) {
      if (typeof schema === 'string') {
        const found = this.ajv.getSchema(`${COMPONENTS_ID}#/components/schemas/${schema}`);
        if (!found) throw new Error(`Unknown component schema ${schema}`);
        fn = found;
      } else {
        fn = this.ajv.compile({ ...schema, $id: undefined });
      }
      this.cache.set(schema, fn);
    }
    return fn;
  }

  /** Compiles every schema now so a broken schema fails at start, not at the first request. */
  precompile(schemas: (string | JsonSchema)[]) {
    for (const s of schemas) this.compile(s);
  }

  errors(schema: string | JsonSchema, value: unknown, prefix = ''): ErrorDetail[] {
    const fn = this.compile(schema);
    if (fn(value)) return [];
    return toDetails(fn.errors ?? [], prefix);
  }

  /** Throws VALIDATION_ERROR with details when the value does not match. */
  assert(schema: string | JsonSchema, value: unknown, prefix = ''): void {
    const details = this.errors(schema, value, prefix);
    if (details.length) throw validationError(details);
  }
}

function pathOf(instancePath: string, prefix: string): string {
  let out = prefix;
  for (const seg of instancePath.split('/').slice(1)) {
    const key = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out ? `.${key}` : key;
  }
  return out;
}

function join(base: string, prop: string) {
  return base ? `${base}.${prop}` : prop;
}

export function toDetails(errors: ErrorObject[], prefix = ''): ErrorDetail[] {
  const concrete = errors.filter((e) => !['oneOf', 'anyOf', 'if', 'not'].includes(e.keyword));
  const list = concrete.length ? concrete : errors;
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const e of list) {
    const base = pathOf(e.instancePath, prefix);
    let field = base || '(body)';
    let message = e.message ?? 'is invalid';
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case 'required':
        field = join(base, String(p.missingProperty));
        message = 'is required';
        break;
      case 'additionalProperties':
        field = join(base, String(p.additionalProperty));
        message = 'is not allowed';
        break;
      case 'enum':
        message = `must be one of: ${(p.allowedValues as unknown[]).map(String).join(', ')}`;
        break;
      case 'const':
        message = `must be ${JSON.stringify(p.allowedValue)}`;
        break;
      case 'type':
        message = `must be ${String(p.type)}`;
        break;
      case 'pattern': {
        const s = (e.parentSchema as { description?: string; 'x-pattern-message'?: string } | undefined)?.['x-pattern-message'];
        message = s ?? 'has an invalid format';
        break;
      }
      default:
        break;
    }
    const key = `${field}|${message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ field, message });
    }
  }
  return out;
}
