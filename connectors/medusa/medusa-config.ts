import { defineConfig, loadEnv } from "@medusajs/framework/utils"

// The plugin's own development and test configuration (not part of the published package): the
// fitroom module from source, options from the environment. A store registers the built plugin instead:
// plugins: [{ resolve: "@fitroom/medusa", options: { url, apiKey } }] (see README.md).
loadEnv(process.env.NODE_ENV || "development", process.cwd())

module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: {
      storeCors: process.env.STORE_CORS || "http://localhost:8000",
      adminCors: process.env.ADMIN_CORS || "http://localhost:9000",
      authCors: process.env.AUTH_CORS || "http://localhost:9000",
      jwtSecret: process.env.JWT_SECRET || "supersecret",
      cookieSecret: process.env.COOKIE_SECRET || "supersecret",
    },
  },
  modules: [
    {
      resolve: "./src/modules/fitroom",
      options: {
        url: process.env.FITROOM_URL,
        apiKey: process.env.FITROOM_API_KEY,
        autoDigitize: process.env.FITROOM_AUTO_DIGITIZE === "true",
        inlineImages: process.env.FITROOM_INLINE_IMAGES === "true",
        ...(process.env.FITROOM_PUBLIC_URL ? { publicUrl: process.env.FITROOM_PUBLIC_URL, webhookSecret: process.env.FITROOM_WEBHOOK_SECRET } : {}),
      },
    },
  ],
})
