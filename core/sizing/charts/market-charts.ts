import type { Gender } from '../../twins/body.ts';
import type { Dimension } from '../../twins/body.ts';
import { EN13402_CHEST_BANDS } from '../en13402.ts';
import type { ReferenceBody } from '../reference/reference-body.ts';
import type { ProductCategory, SizeFittingProduct, SizeRange, SizeRow } from '../size-chart.ts';

/**
 * Real multi-dimension size charts (body measurements, cm) for measuring size fitting; sources in
 * SOURCES.md next to this file. Rows run from the smallest size to the largest.
 */
export interface MarketChart {
  id: string;
  gender: Gender;
  category: ProductCategory;
  source: string;
  product: SizeFittingProduct;
}

function chart(id: string, gender: Gender, category: ProductCategory, source: string, sizes: SizeRow[]): MarketChart {
  return { id, gender, category, source, product: { id, category, sizeChart: { version: 1, basis: 'body', unit: 'cm', sizes } } };
}

/** Single-value chart columns to contiguous ranges: boundaries halfway between neighbours. */
export function rangesFromPoints(values: readonly number[]): SizeRange[] {
  return values.map((v, i) => {
    const lo = i > 0 ? (values[i - 1] + v) / 2 : v - (values[1] - v) / 2;
    const hi = i < values.length - 1 ? (v + values[i + 1]) / 2 : v + (v - values[i - 1]) / 2;
    return { min: lo, max: hi };
  });
}

const r = (min: number, max: number): SizeRange => ({ min, max });
const rows = (labels: readonly string[], columns: Partial<Record<Dimension, readonly SizeRange[]>>): SizeRow[] =>
  labels.map((label, i) => ({
    label,
    measurements: Object.fromEntries(Object.entries(columns).map(([d, ranges]) => [d, ranges[i]])) as Partial<Record<Dimension, SizeRange>>,
  }));

// H&M ladies, EU 32-58 (SOURCES.md 2).
const HM_LABELS = [32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58].map((eu) => `EU ${eu}`);
const HM_BUST = rangesFromPoints([76, 80, 84, 88, 92, 96, 100, 104, 110, 116, 122, 128, 134, 140]);
const HM_WAIST = rangesFromPoints([60, 64, 68, 72, 76, 80, 84, 88, 94, 100, 106, 112, 118, 124]);
const HM_HIP = rangesFromPoints([84, 88, 92, 96, 100, 104, 108, 112, 117, 122, 127, 132, 137, 142]);

// Patagonia women's tops (SOURCES.md 3); XL and XXL are single values.
const PATAGONIA_W_LABELS = ['XS', 'S', 'M', 'L', 'XL', 'XXL'];
const PATAGONIA_W_CHEST = [r(81, 84), r(86, 89), r(91, 94), r(98, 102), r(107, 107), r(122, 122)];
const PATAGONIA_W_WAIST = [r(65, 67), r(70, 72), r(75, 77.5), r(81, 85), r(90, 90), r(105, 105)];
const PATAGONIA_W_HIP = [r(88, 90), r(93, 95), r(98, 100), r(104, 108), r(113, 113), r(130, 130)];

// Fusalp men (SOURCES.md 4): chest for tops, waist and hip from the same guide's rows.
const FUSALP_LABELS = ['XS', 'S', 'S/M', 'M', 'L', 'L/XL', 'XL', 'XXL', 'XXL/XXXL'];
const FUSALP_CHEST = FUSALP_LABELS.map((_, i) => r(86 + 4 * i, 90 + 4 * i));
const FUSALP_WAIST = FUSALP_LABELS.map((_, i) => r(70 + 4 * i, 74 + 4 * i));
const FUSALP_HIP = FUSALP_LABELS.map((_, i) => r(84 + 4 * i, 88 + 4 * i));

// Patagonia men (SOURCES.md 5): single values, chest for tops and waist for bottoms.
const PATAGONIA_M_LABELS = ['XS', 'S', 'M', 'L', 'XL', 'XXL', 'XXXL'];
const PATAGONIA_M_CHEST = rangesFromPoints([89, 94, 102, 112, 119, 127, 142]);
const PATAGONIA_M_WAIST = rangesFromPoints([71, 76, 84, 91, 99, 107, 114]);

/**
 * EN 13402-3 letters (SOURCES.md 1) with the waist and hip of the people each letter fits:
 * p10-p90 of ANSUR II subjects binned by their chest (SOURCES.md 6). Women's 3XL has no
 * subjects and is left out.
 */
const EN_WAIST_HIP: Record<Gender, { waist: SizeRange; hip: SizeRange }[]> = {
  female: [
    { waist: r(65, 77), hip: r(85, 95) },
    { waist: r(71, 84), hip: r(90, 102) },
    { waist: r(78, 92), hip: r(96, 108) },
    { waist: r(86, 102), hip: r(100, 115) },
    { waist: r(94, 111), hip: r(104, 120) },
    { waist: r(105, 117), hip: r(115, 126) },
  ],
  male: [
    { waist: r(69, 76), hip: r(81, 89) },
    { waist: r(73, 84), hip: r(86, 96) },
    { waist: r(78, 92), hip: r(91, 102) },
    { waist: r(87, 102), hip: r(97, 108) },
    { waist: r(95, 111), hip: r(102, 114) },
    { waist: r(104, 120), hip: r(107, 121) },
    { waist: r(114, 131), hip: r(112, 126) },
  ],
};

function enChart(gender: Gender, category: ProductCategory, withHip: boolean): MarketChart {
  const letters = Object.entries(EN13402_CHEST_BANDS[gender]).slice(0, EN_WAIST_HIP[gender].length);
  return chart(
    `en13402-${gender === 'female' ? 'women' : 'men'}-${category}`,
    gender,
    category,
    'EN 13402-3 chest/bust bands; waist (and hip) p10-p90 of ANSUR II subjects per letter',
    letters.map(([label, [min, max]], i) => ({
      label,
      measurements: { chest: r(min, max), waist: EN_WAIST_HIP[gender][i].waist, ...(withHip ? { hip: EN_WAIST_HIP[gender][i].hip } : {}) },
    })),
  );
}

/** Tops sized by chest and waist: the charts behind the headline figures. */
export const TOP_CHARTS: readonly MarketChart[] = [
  enChart('female', 'top', false),
  chart('hm-women-top', 'female', 'top', 'H&M ladies size guide (hm.com/ca), bust and waist', rows(HM_LABELS, { chest: HM_BUST, waist: HM_WAIST })),
  chart('patagonia-women-top', 'female', 'top', "Patagonia women's tops (patagonia.co.nz), chest and waist", rows(PATAGONIA_W_LABELS, { chest: PATAGONIA_W_CHEST, waist: PATAGONIA_W_WAIST })),
  enChart('male', 'top', false),
  chart('fusalp-men-top', 'male', 'top', "Fusalp men's guide (fusalp.com), chest and waist", rows(FUSALP_LABELS, { chest: FUSALP_CHEST, waist: FUSALP_WAIST })),
  chart('patagonia-men-top', 'male', 'top', "Patagonia men's chart (via sizechartly.com, opumo.com), chest and waist", rows(PATAGONIA_M_LABELS, { chest: PATAGONIA_M_CHEST, waist: PATAGONIA_M_WAIST })),
];

/** Full-body garments (dresses, one-piece suits) sized by chest, waist and hip. */
export const FULL_BODY_CHARTS: readonly MarketChart[] = [
  enChart('female', 'fullBody', true),
  chart('hm-women-dress', 'female', 'fullBody', 'H&M ladies size guide (hm.com/ca), bust, waist and hip', rows(HM_LABELS, { chest: HM_BUST, waist: HM_WAIST, hip: HM_HIP })),
  chart('patagonia-women-full', 'female', 'fullBody', "Patagonia women's chart (patagonia.co.nz), chest, waist and hip", rows(PATAGONIA_W_LABELS, { chest: PATAGONIA_W_CHEST, waist: PATAGONIA_W_WAIST, hip: PATAGONIA_W_HIP })),
  enChart('male', 'fullBody', true),
  chart('fusalp-men-suit', 'male', 'fullBody', "Fusalp men's guide (fusalp.com), chest, waist and hip", rows(FUSALP_LABELS, { chest: FUSALP_CHEST, waist: FUSALP_WAIST, hip: FUSALP_HIP })),
];

/**
 * Bottoms sized by waist, hip and inseam. Brand charts give waist and hip; the inseam band of
 * each size is p10-p90 of the crotch height of the given (training) bodies whose waist falls in
 * that size, as a regular-length trouser would be cut.
 */
export function bottomCharts(training: readonly ReferenceBody[]): MarketChart[] {
  const inseamBands = (gender: Gender, waist: readonly SizeRange[]): SizeRange[] =>
    waist.map((w) => {
      const legs = training
        .filter((b) => b.gender === gender && b.measurements.waist >= w.min - 2 && b.measurements.waist < w.max + 2)
        .map((b) => b.measurements.inseam)
        .sort((a, b) => a - b);
      if (legs.length < 10) return r(70, 86);
      const q = (p: number) => Math.round(legs[Math.floor(p * (legs.length - 1))]);
      return r(q(0.1), q(0.9));
    });
  return [
    chart('hm-women-bottom', 'female', 'bottom', 'H&M ladies size guide (hm.com/ca), waist and hip; inseam from ANSUR II', rows(HM_LABELS, { waist: HM_WAIST, hip: HM_HIP, inseam: inseamBands('female', HM_WAIST) })),
    chart('fusalp-men-bottom', 'male', 'bottom', "Fusalp men's guide (fusalp.com), waist and hip; inseam from ANSUR II", rows(FUSALP_LABELS, { waist: FUSALP_WAIST, hip: FUSALP_HIP, inseam: inseamBands('male', FUSALP_WAIST) })),
  ];
}
