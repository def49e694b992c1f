import { useEffect, useState } from "react"
import { Button, Heading, Input, Select, Table, Text } from "@medusajs/ui"
import { adminApi, AdminApiError, type SizeChartRecord } from "./api"

type Category = SizeChartRecord["garment_category"]
type Row = { label: string; ranges: Record<string, { min: string; max: string }> }

/** The dimensions a chart of each category can use (Fitroom size chart version 1, body basis). */
const DIMENSIONS: Record<Category, string[]> = { top: ["chest", "waist"], bottom: ["waist", "hip", "inseam"], fullBody: ["height", "chest", "waist", "hip"] }

function toRows(chart?: SizeChartRecord["chart"]): Row[] {
  if (!chart) return [{ label: "S", ranges: {} }, { label: "M", ranges: {} }, { label: "L", ranges: {} }]
  return chart.sizes.map((s) => ({ label: s.label, ranges: Object.fromEntries(Object.entries(s.measurements).map(([d, r]) => [d, { min: String(r.min), max: String(r.max) }])) }))
}

/**
 * A size chart as a table: one row per size, a min and max per body dimension. Empty cells are left out;
 * Fitroom's rules (each row needs a dimension of the category, max at least min) are checked on save
 * and each problem is shown beside the chart.
 */
export function SizeChartEditor({ target }: { target: { product_id: string } | { category_id: string } }) {
  const query = "product_id" in target ? `product_id=${target.product_id}` : `category_id=${target.category_id}`
  const [record, setRecord] = useState<SizeChartRecord | null>(null)
  const [category, setCategory] = useState<Category>("top")
  const [unit, setUnit] = useState<"cm" | "in">("cm")
  const [rows, setRows] = useState<Row[]>(toRows())
  const [problems, setProblems] = useState<string[]>([])
  const [saved, setSaved] = useState("")

  useEffect(() => {
    adminApi<{ size_charts: SizeChartRecord[] }>("/admin/fitroom/size-charts", { query: target as Record<string, string> }).then(({ size_charts: [c] }) => {
      if (!c) return
      setRecord(c)
      setCategory(c.garment_category)
      setUnit(c.chart.unit)
      setRows(toRows(c.chart))
    }, (e) => setProblems([(e as Error).message]))
  }, [query])

  const dims = DIMENSIONS[category]
  const setCell = (i: number, d: string, k: "min" | "max", v: string) =>
    setRows(rows.map((r, j) => (j === i ? { ...r, ranges: { ...r.ranges, [d]: { min: r.ranges[d]?.min ?? "", max: r.ranges[d]?.max ?? "", [k]: v } } } : r)))

  const save = async () => {
    setProblems([])
    setSaved("")
    const sizes = rows.filter((r) => r.label.trim()).map((r) => ({
      label: r.label.trim(),
      measurements: Object.fromEntries(dims.filter((d) => r.ranges[d]?.min && r.ranges[d]?.max).map((d) => [d, { min: Number(r.ranges[d].min), max: Number(r.ranges[d].max) }])),
    }))
    try {
      const { size_chart } = await adminApi<{ size_chart: SizeChartRecord }>("/admin/fitroom/size-charts", { method: "POST", body: { ...target, garment_category: category, chart: { version: 1, basis: "body", unit, sizes } } })
      setRecord(size_chart)
      setSaved("Saved")
    } catch (e) {
      // the route names every problem in its message: "chart.version: must be 1; …"
      setProblems(e instanceof AdminApiError ? e.message.split("; ") : [(e as Error).message])
    }
  }
  const remove = async () => {
    if (!record) return
    await adminApi(`/admin/fitroom/size-charts/${record.id}`, { method: "DELETE" })
    setRecord(null)
    setRows(toRows())
    setSaved("Deleted")
  }

  return (
    <div className="flex flex-col gap-y-3 px-6 py-4">
      <div className="flex items-center justify-between">
        <Heading level="h3">Size chart</Heading>
        <div className="flex gap-x-2">
          <Select value={category} onValueChange={(v) => setCategory(v as Category)} size="small">
            <Select.Trigger><Select.Value /></Select.Trigger>
            <Select.Content>
              <Select.Item value="top">Top</Select.Item>
              <Select.Item value="bottom">Bottom</Select.Item>
              <Select.Item value="fullBody">Full body</Select.Item>
            </Select.Content>
          </Select>
          <Select value={unit} onValueChange={(v) => setUnit(v as "cm" | "in")} size="small">
            <Select.Trigger><Select.Value /></Select.Trigger>
            <Select.Content>
              <Select.Item value="cm">cm</Select.Item>
              <Select.Item value="in">in</Select.Item>
            </Select.Content>
          </Select>
        </div>
      </div>
      <Text size="small" className="text-ui-fg-subtle">Body measurements each size fits (not garment dimensions). Shoppers get a size from their digital twin.</Text>
      <Table>
        <Table.Header>
          <Table.Row>
            <Table.HeaderCell>Size</Table.HeaderCell>
            {dims.map((d) => <Table.HeaderCell key={d}>{d} min–max</Table.HeaderCell>)}
            <Table.HeaderCell />
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {rows.map((r, i) => (
            <Table.Row key={i}>
              <Table.Cell><Input size="small" value={r.label} aria-label="Size label" onChange={(e) => setRows(rows.map((x, j) => (j === i ? { ...x, label: e.target.value } : x)))} /></Table.Cell>
              {dims.map((d) => (
                <Table.Cell key={d}>
                  <div className="flex gap-x-1">
                    <Input size="small" type="number" aria-label={`${d} min`} value={r.ranges[d]?.min ?? ""} onChange={(e) => setCell(i, d, "min", e.target.value)} />
                    <Input size="small" type="number" aria-label={`${d} max`} value={r.ranges[d]?.max ?? ""} onChange={(e) => setCell(i, d, "max", e.target.value)} />
                  </div>
                </Table.Cell>
              ))}
              <Table.Cell><Button size="small" variant="transparent" onClick={() => setRows(rows.filter((_, j) => j !== i))}>Remove</Button></Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table>
      {problems.length > 0 && <ul className="text-ui-fg-error txt-small">{problems.map((p) => <li key={p}>{p}</li>)}</ul>}
      <div className="flex items-center gap-x-2">
        <Button size="small" variant="secondary" onClick={() => setRows([...rows, { label: "", ranges: {} }])}>Add size</Button>
        <Button size="small" onClick={save}>Save chart</Button>
        {record && <Button size="small" variant="danger" onClick={remove}>Delete chart</Button>}
        {saved && <Text size="small" className="text-ui-fg-subtle">{saved}</Text>}
      </div>
    </div>
  )
}
