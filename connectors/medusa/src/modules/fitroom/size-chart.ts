/** Fitroom size chart version 1 (body basis), as POST /api/v1/size-fitting takes it. */
export interface SizeChartV1 {
  version: 1
  basis: "body"
  unit: "cm" | "in"
  sizes: { label: string; measurements: Partial<Record<Dimension, { min: number; max: number }>> }[]
}

export type SizingCategory = "top" | "bottom" | "fullBody"
export const SIZING_CATEGORIES: readonly SizingCategory[] = ["top", "bottom", "fullBody"]
const DIMENSIONS = ["height", "chest", "waist", "hip", "inseam"] as const
type Dimension = (typeof DIMENSIONS)[number]
/** The dimensions that can decide a size in each category (spec: size fitting). */
const RELEVANT: Record<SizingCategory, Dimension[]> = { top: ["chest", "waist"], bottom: ["waist", "hip", "inseam"], fullBody: ["chest", "waist", "hip", "height"] }

export interface Problem {
  field: string
  message: string
}

/** Every problem of a chart for a category, with the field it is in; empty when the chart is usable. */
export function sizeChartProblems(chart: unknown, category: unknown): Problem[] {
  const p: Problem[] = []
  if (!SIZING_CATEGORIES.includes(category as SizingCategory)) p.push({ field: "garment_category", message: `must be one of ${SIZING_CATEGORIES.join(", ")}` })
  if (!chart || typeof chart !== "object" || Array.isArray(chart)) return [...p, { field: "chart", message: "must be an object" }]
  const c = chart as Record<string, unknown>
  for (const k of Object.keys(c)) if (!["version", "basis", "unit", "sizes"].includes(k)) p.push({ field: `chart.${k}`, message: "is not a size chart field" })
  if (c.version !== 1) p.push({ field: "chart.version", message: "must be 1" })
  if (c.basis !== "body") p.push({ field: "chart.basis", message: "must be body (ranges of the body, not garment dimensions)" })
  if (c.unit !== "cm" && c.unit !== "in") p.push({ field: "chart.unit", message: "must be cm or in" })
  if (!Array.isArray(c.sizes) || c.sizes.length === 0) return [...p, { field: "chart.sizes", message: "must list one or more sizes" }]
  if (c.sizes.length > 50) p.push({ field: "chart.sizes", message: "must list at most 50 sizes" })
  const labels = new Set<string>()
  c.sizes.forEach((row: any, i: number) => {
    const at = `chart.sizes[${i}]`
    if (typeof row?.label !== "string" || !row.label.trim() || row.label.length > 40) p.push({ field: `${at}.label`, message: "must be a label of 1-40 characters, e.g. S" })
    else if (labels.has(row.label)) p.push({ field: `${at}.label`, message: `repeats the label ${row.label}` })
    else labels.add(row.label)
    const m = row?.measurements
    if (!m || typeof m !== "object" || Array.isArray(m)) return p.push({ field: `${at}.measurements`, message: "must be an object of ranges" })
    for (const [dim, r] of Object.entries(m as Record<string, any>)) {
      if (!(DIMENSIONS as readonly string[]).includes(dim)) p.push({ field: `${at}.measurements.${dim}`, message: `is not a dimension (${DIMENSIONS.join(", ")})` })
      else if (!r || !Number.isFinite(r.min) || !Number.isFinite(r.max) || r.min <= 0) p.push({ field: `${at}.measurements.${dim}`, message: "needs min and max, positive numbers" })
      else if (r.max < r.min) p.push({ field: `${at}.measurements.${dim}`, message: "max must be at least min" })
    }
    const relevant = RELEVANT[category as SizingCategory]
    if (relevant && !relevant.some((d) => d in m)) p.push({ field: `${at}.measurements`, message: `needs at least one of ${relevant.join(", ")} for ${category}` })
  })
  return p
}
