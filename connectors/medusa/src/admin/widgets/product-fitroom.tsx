import { useCallback, useEffect, useRef, useState } from "react"
import { defineWidgetConfig } from "@medusajs/admin-sdk"
import type { DetailWidgetProps, AdminProduct } from "@medusajs/framework/types"
import { Badge, Button, Container, Heading, Text } from "@medusajs/ui"
import { adminApi, type ProductModel } from "../components/api"
import { SizeChartEditor } from "../components/size-chart-editor"

const STATUS_COLOR = { processing: "blue", ready: "orange", attached: "green", failed: "red" } as const

/** Fitroom on the product page: Generate 3D (progress, preview, attach), the size chart, a try-on preview. */
const FitroomProductWidget = ({ data: product }: DetailWidgetProps<AdminProduct>) => {
  const [status, setStatus] = useState<{ ok: boolean; message: string } | null>(null)
  useEffect(() => {
    adminApi<{ status: { ok: boolean; message: string } }>("/admin/fitroom/status").then((r) => setStatus(r.status), (e) => setStatus({ ok: false, message: (e as Error).message }))
  }, [])
  return (
    <Container className="divide-y p-0">
      <div className="flex items-center justify-between px-6 py-4">
        <Heading level="h2">Fitroom</Heading>
        {status && <Badge size="2xsmall" color={status.ok ? "green" : "red"} title={status.message}>{status.ok ? "Connected" : "Not connected"}</Badge>}
      </div>
      {status && !status.ok && <Text size="small" className="text-ui-fg-error px-6 py-3">{status.message}</Text>}
      <ModelSection productId={product.id} />
      <SizeChartEditor target={{ product_id: product.id }} />
      <TryOnPreview productId={product.id} />
    </Container>
  )
}

function ModelSection({ productId }: { productId: string }) {
  const [models, setModels] = useState<ProductModel[]>([])
  const [error, setError] = useState("")
  const [busy, setBusy] = useState(false)
  const load = useCallback(() => adminApi<{ models: ProductModel[] }>(`/admin/fitroom/products/${productId}/models`).then((r) => setModels(r.models), (e) => setError((e as Error).message)), [productId])
  useEffect(() => void load(), [load])
  const processing = models.some((m) => m.status === "processing")
  useEffect(() => {
    if (!processing) return
    const t = setInterval(load, 3000) // each look also moves the generation on
    return () => clearInterval(t)
  }, [processing, load])

  const act = async (fn: () => Promise<unknown>) => {
    setBusy(true)
    setError("")
    try {
      await fn()
      await load()
    } catch (e) {
      setError((e as Error).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <div className="flex flex-col gap-y-3 px-6 py-4">
      <div className="flex items-center justify-between">
        <Heading level="h3">3D model</Heading>
        <Button size="small" isLoading={busy} disabled={processing} onClick={() => act(() => adminApi(`/admin/fitroom/products/${productId}/models`, { method: "POST" }))}>Generate 3D</Button>
      </div>
      <Text size="small" className="text-ui-fg-subtle">Made from the product&apos;s photos (several angles work best). Shoppers see a model once you attach it.</Text>
      {error && <Text size="small" className="text-ui-fg-error">{error}</Text>}
      {models.map((m) => (
        <div key={m.id} className="flex items-start gap-x-4 rounded-md border p-3">
          {m.preview_url ? <img src={m.preview_url} alt="Preview of the 3D model from several angles" className="h-24 w-24 rounded object-contain" /> : <div className="bg-ui-bg-subtle h-24 w-24 rounded" />}
          <div className="flex flex-1 flex-col gap-y-1">
            <div className="flex items-center gap-x-2">
              <Badge size="2xsmall" color={STATUS_COLOR[m.status]}>{m.status}</Badge>
              <Text size="xsmall" className="text-ui-fg-subtle">{new Date(m.created_at).toLocaleString()}</Text>
            </div>
            {m.status === "processing" && (
              <div className="bg-ui-bg-subtle h-2 w-full overflow-hidden rounded" role="progressbar" aria-valuenow={m.progress} aria-valuemin={0} aria-valuemax={100}>
                <div className="bg-ui-fg-interactive h-2" style={{ width: `${Math.max(4, m.progress)}%` }} />
              </div>
            )}
            {m.error_message && <Text size="small" className={m.status === "failed" ? "text-ui-fg-error" : "text-ui-fg-subtle"}>{m.error_code}: {m.error_message}</Text>}
            <div className="flex gap-x-2">
              {m.glb_url && <a className="txt-small text-ui-fg-interactive" href={m.glb_url} target="_blank" rel="noreferrer">Open GLB</a>}
              {m.status === "ready" && <Button size="small" variant="secondary" onClick={() => act(() => adminApi(`/admin/fitroom/models/${m.id}/attach`, { method: "POST" }))}>Attach to product</Button>}
              {m.status !== "processing" && <Button size="small" variant="transparent" onClick={() => act(() => adminApi(`/admin/fitroom/models/${m.id}`, { method: "DELETE" }))}>Delete</Button>}
            </div>
          </div>
        </div>
      ))}
    </div>
  )
}

function TryOnPreview({ productId }: { productId: string }) {
  const [state, setState] = useState<{ status: string; image?: string; error?: string } | null>(null)
  const input = useRef<HTMLInputElement>(null)
  const run = async (file: File) => {
    setState({ status: "uploading" })
    try {
      const person_image = await new Promise<string>((resolve, reject) => {
        const reader = new FileReader()
        reader.onload = () => resolve(String(reader.result))
        reader.onerror = () => reject(new Error("The photo could not be read"))
        reader.readAsDataURL(file)
      })
      let { job } = await adminApi<{ job: { id: string; status: string; results: { url: string }[]; result?: { imageUrl?: string }; error?: string } }>(`/admin/fitroom/products/${productId}/try-on`, { method: "POST", body: { person_image } })
      for (let i = 0; job.status !== "completed" && job.status !== "failed" && i < 600; i++) {
        setState({ status: job.status })
        await new Promise((r) => setTimeout(r, 1000))
        job = (await adminApi<{ job: typeof job }>(`/admin/fitroom/jobs/${job.id}`)).job
      }
      setState(job.status === "completed" ? { status: "completed", image: job.results[0]?.url ?? job.result?.imageUrl } : { status: "failed", error: job.error ?? "The try-on failed" })
    } catch (e) {
      setState({ status: "failed", error: (e as Error).message })
    }
  }
  return (
    <div className="flex flex-col gap-y-3 px-6 py-4">
      <div className="flex items-center justify-between">
        <Heading level="h3">Try-on preview</Heading>
        <Button size="small" variant="secondary" onClick={() => input.current?.click()}>Choose a model photo</Button>
        <input ref={input} type="file" accept="image/png,image/jpeg,image/webp" className="hidden" onChange={(e) => e.target.files?.[0] && run(e.target.files[0])} />
      </div>
      <Text size="small" className="text-ui-fg-subtle">See this product on a person before shoppers do: a full-body photo, one person, facing the camera.</Text>
      {state && state.status !== "completed" && state.status !== "failed" && <Text size="small">Working: {state.status}…</Text>}
      {state?.error && <Text size="small" className="text-ui-fg-error">{state.error}</Text>}
      {state?.image && <img src={state.image} alt="The product tried on the chosen photo" className="max-h-96 self-start rounded" />}
    </div>
  )
}

export const config = defineWidgetConfig({ zone: "product.details.after" })

export default FitroomProductWidget
