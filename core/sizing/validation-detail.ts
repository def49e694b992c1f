/** One problem in a request body, as the spec's VALIDATION_ERROR details report it. */
export interface ValidationDetail {
  /** Path into the body, e.g. `products[0].sizeChart.sizes[1].measurements.chest.max`. */
  field: string;
  message: string;
}
