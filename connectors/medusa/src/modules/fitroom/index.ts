import { Module } from "@medusajs/framework/utils"
import FitroomModuleService from "./service"
import { resolveOptions } from "./options"

/** Checks the plugin's options when Medusa loads the module, so a wrong setting stops the start with its reason. */
async function checkOptions({ options }: { options?: unknown }) {
  resolveOptions(options)
}

export const FITROOM_MODULE = "fitroom"

export default Module(FITROOM_MODULE, { service: FitroomModuleService, loaders: [checkOptions] })

export { FitroomModuleService }
export type { ResolvedOptions, FitroomPluginOptions } from "./options"
