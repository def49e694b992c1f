import { authenticate, defineMiddlewares } from "@medusajs/framework/http"

/** Person photos arrive as data URLs: try-on routes take bodies up to 20 MB, the others Medusa's default. */
const PHOTO_BODY = { sizeLimit: "20mb" }

export default defineMiddlewares({
  routes: [
    // Shopper routes work for guests (with their cart) and for signed-in customers.
    { matcher: "/store/fitroom/products/:id/try-on", method: ["POST"], bodyParser: PHOTO_BODY, middlewares: [authenticate("customer", ["session", "bearer"], { allowUnauthenticated: true })] },
    { matcher: "/store/fitroom/jobs/:jobId", method: ["GET"], middlewares: [authenticate("customer", ["session", "bearer"], { allowUnauthenticated: true })] },
    { matcher: "/admin/fitroom/products/:id/try-on", method: ["POST"], bodyParser: PHOTO_BODY },
  ],
})
