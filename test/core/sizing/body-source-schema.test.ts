import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { BODY_MEASUREMENTS_SCHEMA, CLOTHING_SIZE_SCHEMA } from '../../../core/sizing/body-source-schema.ts';

const ajv = new Ajv2020({ strict: true });
const measurements = ajv.compile(BODY_MEASUREMENTS_SCHEMA);
const clothing = ajv.compile(CLOTHING_SIZE_SCHEMA);

describe('body source schemas', () => {
  it('BodyMeasurements: at least two values, each within the spec bounds', () => {
    expect(measurements({ height: 170, chest: 95 })).toBe(true);
    expect(measurements({ height: 210, chest: 160, waist: 170, hip: 170, inseam: 100 })).toBe(true);
    expect(measurements({ height: 140, chest: 70, waist: 55, hip: 70, inseam: 60 })).toBe(true);
    expect(measurements({ height: 170 })).toBe(false);
    expect(measurements({ height: 139.9, chest: 95 })).toBe(false);
    expect(measurements({ height: 170, waist: 170.1 })).toBe(false);
    expect(measurements({ height: 170, inseam: 59 })).toBe(false);
    expect(measurements({ height: 170, chest: '95' })).toBe(false);
    expect(measurements({ height: 170, neck: 40 })).toBe(false);
  });

  it('ClothingSize: height 140-210 and one of the seven letters', () => {
    expect(clothing({ height: 165, size: 'M' })).toBe(true);
    expect(clothing({ height: 165, size: '3XL' })).toBe(true);
    expect(clothing({ height: 165, size: 'XXXL' })).toBe(false);
    expect(clothing({ height: 211, size: 'M' })).toBe(false);
    expect(clothing({ size: 'M' })).toBe(false);
    expect(clothing({ height: 165 })).toBe(false);
  });
});
