import type { Dimension } from '../twins/body.ts';

/** The spec's size-fitting request, as accepted by validateSizeFittingRequest. */
export type ProductCategory = 'top' | 'bottom' | 'fullBody';
export const PRODUCT_CATEGORIES: readonly ProductCategory[] = ['top', 'bottom', 'fullBody'];

export type ChartUnit = 'cm' | 'in';
export const CHART_UNITS: readonly ChartUnit[] = ['cm', 'in'];

export const CM_PER_INCH = 2.54;

/** Every size row must give at least one of these dimensions for its product's category. */
export const RELEVANT_DIMENSIONS: Readonly<Record<ProductCategory, readonly Dimension[]>> = {
  top: ['chest', 'waist'],
  bottom: ['waist', 'hip', 'inseam'],
  fullBody: ['chest', 'waist', 'hip', 'height'],
};

export interface SizeRange {
  min: number;
  max: number;
}

export interface SizeRow {
  label: string;
  measurements: Partial<Record<Dimension, SizeRange>>;
}

export interface SizeChart {
  version: 1;
  /** Body ranges, not garment dimensions. */
  basis: 'body';
  unit: ChartUnit;
  sizes: SizeRow[];
}

/** How the shopper likes this product to fit; shifts conflicts between dimensions (see size-decision.ts). */
export type FitPreference = 'regular' | 'loose' | 'snug';
export const FIT_PREFERENCES: readonly FitPreference[] = ['regular', 'loose', 'snug'];

export interface SizeFittingProduct {
  id: string;
  category: ProductCategory;
  sizeChart: SizeChart;
  /** Default `regular`. */
  fitPreference?: FitPreference;
}

export interface SizeFittingRequest {
  digitalTwinId: string;
  products: SizeFittingProduct[];
}

/** Limits this service adds to the spec's request (it sets none); guards the synchronous endpoint. */
export const MAX_PRODUCTS = 100;
export const MAX_SIZES_PER_CHART = 100;
