import path from "node:path"
import { defineConfig } from "@medusajs/framework/utils"

// A store that installs the built plugin the way the README says (plugins: [{ resolve, options }]).
// `resolve` is the package's folder here; in a store it is the package name, "@fitroom/medusa".
module.exports = defineConfig({
  projectConfig: {
    databaseUrl: process.env.DATABASE_URL,
    http: { storeCors: "*", adminCors: "*", authCors: "*", jwtSecret: "supersecret", cookieSecret: "supersecret" },
  },
  plugins: [
    {
      resolve: path.resolve(__dirname, "../.."),
      options: { url: process.env.FITROOM_URL, apiKey: process.env.FITROOM_API_KEY, inlineImages: true },
    },
  ],
})
