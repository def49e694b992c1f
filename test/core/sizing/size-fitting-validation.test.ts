import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { SIZE_FITTING_REQUEST_SCHEMA } from '../../../core/sizing/size-fitting-schema.ts';
import { validateSizeFittingRequest } from '../../../core/sizing/size-fitting-validation.ts';

const TWIN = 'a'.repeat(64);

function request(overrides: Record<string, unknown> = {}) {
  return {
    digitalTwinId: TWIN,
    products: [
      {
        id: 'tee-1',
        category: 'top',
        sizeChart: {
          version: 1,
          basis: 'body',
          unit: 'cm',
          sizes: [
            { label: 'S', measurements: { chest: { min: 86, max: 94 } } },
            { label: 'M', measurements: { chest: { min: 94, max: 102 }, waist: { min: 80, max: 88 } } },
          ],
        },
      },
    ],
    ...overrides,
  };
}

/** A valid request with one path changed (or deleted when value is undefined). */
function withChange(path: (string | number)[], value: unknown) {
  const body: any = request();
  let node = body;
  for (const key of path.slice(0, -1)) node = node[key];
  const last = path.at(-1)!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return body;
}

const CHART = ['products', 0, 'sizeChart'];
const ROW1 = [...CHART, 'sizes', 1];

describe('validateSizeFittingRequest', () => {
  it('accepts a valid request', () => {
    expect(validateSizeFittingRequest(request())).toEqual([]);
  });

  const cases: [string, (string | number)[], unknown, string, RegExp][] = [
    ['twin id required', ['digitalTwinId'], undefined, 'digitalTwinId', /required/],
    ['twin id pattern', ['digitalTwinId'], 'A'.repeat(64), 'digitalTwinId', /64-character lowercase hex/],
    ['products required', ['products'], undefined, 'products', /required/],
    ['products array', ['products'], { id: 'x' }, 'products', /array/],
    ['products non-empty', ['products'], [], 'products', /at least one/],
    ['product object', ['products', 0], 'tee', 'products[0]', /object/],
    ['product id required', ['products', 0, 'id'], undefined, 'products[0].id', /required/],
    ['product id string', ['products', 0, 'id'], 7, 'products[0].id', /string/],
    ['category required', ['products', 0, 'category'], undefined, 'products[0].category', /required/],
    ['category enum', ['products', 0, 'category'], 'shoe', 'products[0].category', /top, bottom, fullBody/],
    ['size chart required', ['products', 0, 'sizeChart'], undefined, 'products[0].sizeChart', /required/],
    ['version required', [...CHART, 'version'], undefined, 'products[0].sizeChart.version', /required/],
    ['version must be 1', [...CHART, 'version'], 2, 'products[0].sizeChart.version', /must be 1/],
    ['version is a number', [...CHART, 'version'], '1', 'products[0].sizeChart.version', /must be 1/],
    ['basis required', [...CHART, 'basis'], undefined, 'products[0].sizeChart.basis', /required/],
    ['basis must be body', [...CHART, 'basis'], 'garment', 'products[0].sizeChart.basis', /body/],
    ['unit required', [...CHART, 'unit'], undefined, 'products[0].sizeChart.unit', /required/],
    ['unit enum', [...CHART, 'unit'], 'mm', 'products[0].sizeChart.unit', /cm, in/],
    ['sizes required', [...CHART, 'sizes'], undefined, 'products[0].sizeChart.sizes', /required/],
    ['sizes non-empty', [...CHART, 'sizes'], [], 'products[0].sizeChart.sizes', /at least one/],
    ['label required', [...ROW1, 'label'], undefined, 'products[0].sizeChart.sizes[1].label', /required/],
    ['label unique', [...ROW1, 'label'], 'S', 'products[0].sizeChart.sizes[1].label', /duplicate label "S"/],
    ['measurements required', [...ROW1, 'measurements'], undefined, 'products[0].sizeChart.sizes[1].measurements', /required/],
    ['min required', [...ROW1, 'measurements', 'chest', 'min'], undefined, 'products[0].sizeChart.sizes[1].measurements.chest.min', /required/],
    ['max required', [...ROW1, 'measurements', 'chest', 'max'], undefined, 'products[0].sizeChart.sizes[1].measurements.chest.max', /required/],
    ['min numeric', [...ROW1, 'measurements', 'chest', 'min'], '94', 'products[0].sizeChart.sizes[1].measurements.chest.min', /number/],
    ['max >= min', [...ROW1, 'measurements', 'chest', 'max'], 93.9, 'products[0].sizeChart.sizes[1].measurements.chest.max', /greater than or equal to min/],
    ['unknown dimension', [...ROW1, 'measurements', 'neck'], { min: 1, max: 2 }, 'products[0].sizeChart.sizes[1].measurements.neck', /is not allowed/],
    ['unknown top-level field', ['extra'], true, 'extra', /is not allowed/],
    [
      'relevant dimension for a top',
      [...ROW1, 'measurements'],
      { hip: { min: 90, max: 100 }, inseam: { min: 70, max: 80 } },
      'products[0].sizeChart.sizes[1].measurements',
      /relevant to a top: chest, waist/,
    ],
  ];

  it.each(cases)('%s', (_name, path, value, field, message) => {
    const details = validateSizeFittingRequest(withChange(path, value));
    expect(details).toHaveLength(1);
    expect(details[0].field).toBe(field);
    expect(details[0].message).toMatch(message);
  });

  it('accepts an optional fitPreference per product and rejects unknown ones', () => {
    for (const pref of ['regular', 'loose', 'snug']) expect(validateSizeFittingRequest(withChange(['products', 0, 'fitPreference'], pref))).toEqual([]);
    expect(validateSizeFittingRequest(withChange(['products', 0, 'fitPreference'], 'baggy'))).toEqual([
      { field: 'products[0].fitPreference', message: 'must be one of: regular, loose, snug' },
    ]);
  });

  it('accepts max equal to min', () => {
    expect(validateSizeFittingRequest(withChange([...ROW1, 'measurements', 'chest'], { min: 95, max: 95 }))).toEqual([]);
  });

  it('applies the relevant dimensions of each category', () => {
    const only = (category: string, dim: string) =>
      validateSizeFittingRequest(
        withChange(['products', 0], {
          id: 'p',
          category,
          sizeChart: { version: 1, basis: 'body', unit: 'in', sizes: [{ label: 'A', measurements: { [dim]: { min: 1, max: 2 } } }] },
        }),
      );
    const allowed: Record<string, string[]> = { top: ['chest', 'waist'], bottom: ['waist', 'hip', 'inseam'], fullBody: ['chest', 'waist', 'hip', 'height'] };
    for (const [category, dims] of Object.entries(allowed)) {
      for (const dim of ['height', 'chest', 'waist', 'hip', 'inseam']) {
        const details = only(category, dim);
        if (dims.includes(dim)) expect(details, `${category}/${dim}`).toEqual([]);
        else expect(details, `${category}/${dim}`).toEqual([{ field: 'products[0].sizeChart.sizes[0].measurements', message: expect.stringContaining(dims.join(', ')) }]);
      }
    }
  });

  it('reports every problem at once with its own path', () => {
    const body: any = request();
    body.products.push({ id: '', category: 'bottom', sizeChart: { version: 1, basis: 'body', unit: 'cm', sizes: [{ label: 'X', measurements: { chest: { min: 9, max: 1 } } }] } });
    expect(validateSizeFittingRequest(body)).toEqual([
      { field: 'products[1].id', message: 'must be a non-empty string' },
      { field: 'products[1].sizeChart.sizes[0].measurements.chest.max', message: 'must be greater than or equal to min (9)' },
      { field: 'products[1].sizeChart.sizes[0].measurements', message: 'must include at least one dimension relevant to a bottom: waist, hip, inseam' },
    ]);
  });

  it('rejects a body that is not an object', () => {
    expect(validateSizeFittingRequest([])).toEqual([{ field: '(body)', message: 'must be a JSON object' }]);
    expect(validateSizeFittingRequest(null)).toEqual([{ field: '(body)', message: 'must be a JSON object' }]);
  });

  it('agrees with the published JSON Schema on structural rules', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const validate = ajv.compile(SIZE_FITTING_REQUEST_SCHEMA);
    expect(validate(request())).toBe(true);
    for (const [name, path, value] of cases) {
      const body = withChange(path, value);
      // Labels, max >= min and relevance are beyond a schema; everything else must fail both ways.
      const semantic = /unique|max >= min|relevant/.test(name);
      expect(validate(body), name).toBe(semantic);
      expect(validateSizeFittingRequest(body).length > 0, name).toBe(true);
    }
  });
});
