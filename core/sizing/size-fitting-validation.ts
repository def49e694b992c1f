import { DIMENSIONS } from '../twins/body.ts';
import type { Dimension } from '../twins/body.ts';
import { CHART_UNITS, FIT_PREFERENCES, MAX_PRODUCTS, MAX_SIZES_PER_CHART, PRODUCT_CATEGORIES, RELEVANT_DIMENSIONS } from './size-chart.ts';
import type { ProductCategory, SizeFittingRequest } from './size-chart.ts';
import type { ValidationDetail } from './validation-detail.ts';

export const TWIN_ID_PATTERN = /^[a-f0-9]{64}$/;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Checks a POST /api/v1/size-fitting body against every rule of the spec (and the JSON Schema in
 * size-fitting-schema.ts), including the ones a schema cannot state: unique labels per chart,
 * max >= min, and a relevant dimension in every row. Returns no details when the body is valid.
 */
export function validateSizeFittingRequest(body: unknown): ValidationDetail[] {
  const out: ValidationDetail[] = [];
  const add = (field: string, message: string) => out.push({ field, message });
  if (!isObject(body)) {
    add('(body)', 'must be a JSON object');
    return out;
  }
  unknownKeys(body, ['digitalTwinId', 'products'], '', add);
  if (body.digitalTwinId === undefined) add('digitalTwinId', 'is required');
  else if (typeof body.digitalTwinId !== 'string' || !TWIN_ID_PATTERN.test(body.digitalTwinId)) {
    add('digitalTwinId', 'must be a 64-character lowercase hex string');
  }
  const products = body.products;
  if (products === undefined) add('products', 'is required');
  else if (!Array.isArray(products)) add('products', 'must be an array');
  else if (products.length === 0) add('products', 'must contain at least one product');
  else if (products.length > MAX_PRODUCTS) add('products', `must contain at most ${MAX_PRODUCTS} products`);
  else products.forEach((p, i) => validateProduct(p, `products[${i}]`, add));
  return out;
}

/** Narrowing helper for callers that already checked the details are empty. */
export function isValidSizeFittingRequest(body: unknown): body is SizeFittingRequest {
  return validateSizeFittingRequest(body).length === 0;
}

type Add = (field: string, message: string) => void;

function unknownKeys(obj: Obj, allowed: readonly string[], prefix: string, add: Add): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) add(prefix ? `${prefix}.${key}` : key, 'is not allowed');
  }
}

function validateProduct(p: unknown, at: string, add: Add): void {
  if (!isObject(p)) {
    add(at, 'must be an object');
    return;
  }
  unknownKeys(p, ['id', 'category', 'sizeChart', 'fitPreference'], at, add);
  if (p.fitPreference !== undefined && !(FIT_PREFERENCES as readonly unknown[]).includes(p.fitPreference)) {
    add(`${at}.fitPreference`, `must be one of: ${FIT_PREFERENCES.join(', ')}`);
  }
  if (p.id === undefined) add(`${at}.id`, 'is required');
  else if (typeof p.id !== 'string' || p.id.length === 0) add(`${at}.id`, 'must be a non-empty string');
  let category: ProductCategory | null = null;
  if (p.category === undefined) add(`${at}.category`, 'is required');
  else if (!(PRODUCT_CATEGORIES as readonly unknown[]).includes(p.category)) add(`${at}.category`, `must be one of: ${PRODUCT_CATEGORIES.join(', ')}`);
  else category = p.category as ProductCategory;
  if (p.sizeChart === undefined) add(`${at}.sizeChart`, 'is required');
  else validateChart(p.sizeChart, `${at}.sizeChart`, category, add);
}

function validateChart(c: unknown, at: string, category: ProductCategory | null, add: Add): void {
  if (!isObject(c)) {
    add(at, 'must be an object');
    return;
  }
  unknownKeys(c, ['version', 'basis', 'unit', 'sizes'], at, add);
  if (c.version === undefined) add(`${at}.version`, 'is required');
  else if (c.version !== 1) add(`${at}.version`, 'must be 1');
  if (c.basis === undefined) add(`${at}.basis`, 'is required');
  else if (c.basis !== 'body') add(`${at}.basis`, 'must be "body" (body ranges, not garment dimensions)');
  if (c.unit === undefined) add(`${at}.unit`, 'is required');
  else if (!(CHART_UNITS as readonly unknown[]).includes(c.unit)) add(`${at}.unit`, `must be one of: ${CHART_UNITS.join(', ')}`);
  const sizes = c.sizes;
  if (sizes === undefined) add(`${at}.sizes`, 'is required');
  else if (!Array.isArray(sizes)) add(`${at}.sizes`, 'must be an array');
  else if (sizes.length === 0) add(`${at}.sizes`, 'must contain at least one size');
  else if (sizes.length > MAX_SIZES_PER_CHART) add(`${at}.sizes`, `must contain at most ${MAX_SIZES_PER_CHART} sizes`);
  else {
    const seen = new Set<string>();
    sizes.forEach((row, j) => {
      const label = validateRow(row, `${at}.sizes[${j}]`, category, add);
      if (label === null) return;
      if (seen.has(label)) add(`${at}.sizes[${j}].label`, `duplicate label "${label}"; labels must be unique`);
      seen.add(label);
    });
  }
}

/** Returns the row's label when it is a valid string, for the uniqueness check. */
function validateRow(row: unknown, at: string, category: ProductCategory | null, add: Add): string | null {
  if (!isObject(row)) {
    add(at, 'must be an object');
    return null;
  }
  unknownKeys(row, ['label', 'measurements'], at, add);
  let label: string | null = null;
  if (row.label === undefined) add(`${at}.label`, 'is required');
  else if (typeof row.label !== 'string' || row.label.length === 0) add(`${at}.label`, 'must be a non-empty string');
  else label = row.label;
  const m = row.measurements;
  if (m === undefined) add(`${at}.measurements`, 'is required');
  else if (!isObject(m)) add(`${at}.measurements`, 'must be an object');
  else {
    unknownKeys(m, DIMENSIONS, `${at}.measurements`, add);
    for (const d of DIMENSIONS) if (m[d] !== undefined) validateRange(m[d], `${at}.measurements.${d}`, add);
    if (category) {
      const relevant = RELEVANT_DIMENSIONS[category];
      if (!relevant.some((d: Dimension) => m[d] !== undefined)) {
        add(`${at}.measurements`, `must include at least one dimension relevant to a ${category}: ${relevant.join(', ')}`);
      }
    }
  }
  return label;
}

function validateRange(r: unknown, at: string, add: Add): void {
  if (!isObject(r)) {
    add(at, 'must be an object with min and max');
    return;
  }
  unknownKeys(r, ['min', 'max'], at, add);
  const min = r.min;
  const max = r.max;
  if (min === undefined) add(`${at}.min`, 'is required');
  else if (!isNumber(min)) add(`${at}.min`, 'must be a number');
  if (max === undefined) add(`${at}.max`, 'is required');
  else if (!isNumber(max)) add(`${at}.max`, 'must be a number');
  else if (isNumber(min) && max < min) add(`${at}.max`, `must be greater than or equal to min (${min})`);
}
