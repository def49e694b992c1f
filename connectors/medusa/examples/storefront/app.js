/* global document, location, fetch, URL, URLSearchParams, FileReader, TextEncoder, btoa, crypto, localStorage, sessionStorage, setTimeout */
// Fitroom in a Medusa storefront: try-on with consent, "find my size" from a digital twin, the 3D view.
import Medusa from "@medusajs/js-sdk"
import config from "/config.js"

const sdk = new Medusa({ baseUrl: config.backendUrl, publishableKey: config.publishableKey })
const $ = (id) => document.getElementById(id)
const productId = new URLSearchParams(location.search).get("product")

/** An error of a Fitroom store route, with Medusa's `code` kept (e.g. BOT_VERIFICATION_REQUIRED). */
class StoreError extends Error {
  constructor(status, body) {
    super(body.message ?? `HTTP ${status}`)
    this.status = status
    this.code = body.code ?? body.type
  }
}

/**
 * Calls a Fitroom store route with the browser's fetch, not `sdk.client.fetch`: the SDK throws a
 * FetchError on any non-2xx answer and FetchError keeps only `message` and `status`, so the error's
 * `code` (BOT_VERIFICATION_REQUIRED, TWIN_NOT_FOUND, …) is lost. On success, `sdk.client.fetch(path,
 * { headers: { accept: null } })` would return the raw Response (headers readable), but errors are what
 * the flows branch on. The headers are the ones the SDK sends: the publishable key, JSON.
 */
async function storeFetch(path, { method = "GET", body, query, headers = {} } = {}) {
  const url = new URL(path, config.backendUrl)
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v)
  // a signed-in customer is named by the token sdk.auth.login kept (a guest names their cart instead)
  const token = await sdk.client.getToken()
  const res = await fetch(url, {
    method,
    headers: { "x-publishable-api-key": config.publishableKey, ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { "content-type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  })
  const data = await res.json().catch(() => ({}))
  if (!res.ok) throw new StoreError(res.status, data)
  const pass = res.headers.get("X-Fitroom-Pass") // readable across origins: the plugin exposes it
  if (pass) sessionStorage.setItem("fitroom-pass", pass)
  return { status: res.status, data }
}

/** The shopper's bot-verification headers: the kept pass, else a freshly solved challenge. */
async function verification() {
  const pass = sessionStorage.getItem("fitroom-pass")
  if (pass) return { "X-Fitroom-Pass": pass }
  const { data } = await storeFetch("/store/fitroom/challenge")
  return { "X-Challenge-Token": await solve(data.challenge) }
}

/** Retries once with a new challenge when the pass has expired or belongs to someone else. */
async function verified(path, init) {
  try {
    return await storeFetch(path, { ...init, headers: await verification() })
  } catch (e) {
    if (e.code !== "BOT_VERIFICATION_REQUIRED" || !sessionStorage.getItem("fitroom-pass")) throw e
    sessionStorage.removeItem("fitroom-pass")
    return storeFetch(path, { ...init, headers: await verification() })
  }
}

/** Solves an altcha challenge (SHA-256 proof of work) with WebCrypto, as altcha's widget does. */
async function solve(c) {
  const enc = new TextEncoder()
  for (let n = 0; n <= c.maxnumber; n++) {
    const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", enc.encode(c.salt + n)))
    const hex = Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("")
    if (hex === c.challenge) return btoa(JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: n, salt: c.salt, signature: c.signature }))
  }
  throw new Error("challenge not solvable")
}

/** A guest names their cart; the cart is created once with the SDK and kept. */
async function cartId() {
  const kept = localStorage.getItem("cart_id")
  if (kept) return kept
  const { cart } = await sdk.store.cart.create({})
  localStorage.setItem("cart_id", cart.id)
  return cart.id
}

/** Who the routes count as the shopper: the signed-in customer (their token), else the guest's cart. */
const shopper = async () => ((await sdk.client.getToken()) ? {} : { cart_id: await cartId() })

const readPhoto = () =>
  new Promise((resolve, reject) => {
    const file = $("photo").files[0]
    if (!file) return reject(new Error("Choose a photo first."))
    const reader = new FileReader()
    reader.onload = () => resolve(reader.result) // a data URL: the route accepts it as person_image / face_image
    reader.onerror = () => reject(reader.error)
    reader.readAsDataURL(file)
  })

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const show = (id, text, isError = false) => {
  $(id).textContent = text
  $(id).className = isError ? "error" : ""
}
const explain = (e) => (e.code ? `${e.message} (${e.code})` : e.message)

// Consent first: the photo cannot be chosen, nor sent, until the shopper agrees.
$("consent").addEventListener("change", () => {
  $("photo").disabled = !$("consent").checked
  $("tryon-go").disabled = !$("consent").checked
})

$("tryon-go").addEventListener("click", async () => {
  if (!$("consent").checked) return
  try {
    show("tryon-status", "Sending your photo…")
    const person_image = await readPhoto()
    let { data } = await verified(`/store/fitroom/products/${productId}/try-on`, { method: "POST", body: { person_image, ...(await shopper()) } })
    let job = data.job
    while (job.status !== "completed" && job.status !== "failed") {
      show("tryon-status", `Making your picture… ${job.progress ?? 0}%`)
      await sleep(1000)
      ;({ data } = await verified(`/store/fitroom/jobs/${job.id}`, { query: await shopper() }))
      job = data.job
    }
    if (job.status === "failed") return show("tryon-status", `${job.error} (${job.error_code})`, true)
    show("tryon-status", "Here you are:")
    const img = document.createElement("img")
    img.alt = "You wearing this product"
    img.src = job.results[0].url
    $("tryon-result").replaceChildren(img)
  } catch (e) {
    show("tryon-status", explain(e), true)
  }
})

$("size-go").addEventListener("click", async () => {
  try {
    const who = await shopper()
    let twin = await storeFetch("/store/fitroom/digital-twin", { query: who }).then((r) => r.data.digital_twin, (e) => (e.code === "TWIN_NOT_FOUND" ? null : Promise.reject(e)))
    if (!twin || twin.status === "failed") {
      if (!$("consent").checked) return show("size-status", "Agree to send your photo above first: your size is found from a digital twin made from it.", true)
      show("size-status", "Making your digital twin…")
      const face_image = await readPhoto()
      twin = (await verified("/store/fitroom/digital-twin", { method: "POST", body: { face_image, clothing_size: { height: Number($("height").value), size: $("usual-size").value }, ...who } })).data.digital_twin
    }
    while (twin.status === "processing") {
      await sleep(2000)
      twin = (await storeFetch("/store/fitroom/digital-twin", { query: who })).data.digital_twin
    }
    if (twin.status === "failed") return show("size-status", `${twin.error_message} (${twin.error_code})`, true)
    show("size-status", "")
    const { data } = await storeFetch(`/store/fitroom/products/${productId}/size-fitting`, { method: "POST", body: who })
    show("size-answer", `Your size: ${data.size.recommendedSize} (${Math.round(data.size.confidence * 100)}% sure)`)
  } catch (e) {
    show("size-status", explain(e), true)
  }
})

// Sign-in with the SDK (JWT kept in localStorage): the customer's twin is then theirs, kept across carts.
const showCustomer = async () => {
  if (!(await sdk.client.getToken())) return
  const { customer } = await sdk.store.customer.retrieve()
  show("account-status", `Signed in as ${customer.email}.`)
  $("sign-in").hidden = true
}
$("sign-in").addEventListener("submit", async (event) => {
  event.preventDefault()
  try {
    await sdk.auth.login("customer", "emailpass", { email: $("email").value, password: $("password").value })
    sessionStorage.removeItem("fitroom-pass") // the guest's pass is the cart's: the customer solves their own
    await showCustomer()
  } catch (e) {
    show("account-status", e.message, true)
  }
})
showCustomer().catch((e) => show("account-status", e.message, true))

// The product with its 3D model through Medusa's own store API (the plugin links the model to the product).
try {
  const { product } = await sdk.store.product.retrieve(productId, { fields: "title,+fitroom_model.*" })
  $("product-title").textContent = product.title
  if (product.fitroom_model?.glb_url) {
    $("model").src = product.fitroom_model.glb_url
    $("model").hidden = false
    $("model").addEventListener("load", () => show("model-status", "3D model loaded."))
    $("model").addEventListener("error", () => show("model-status", "The 3D model could not be loaded.", true))
  } else show("model-status", "No 3D view for this product yet.")
} catch (e) {
  show("model-status", e.message, true) // the SDK's FetchError: message and status only
}
