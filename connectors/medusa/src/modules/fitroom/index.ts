import { Module } from "@medusajs/framework/utils"
import FitroomModuleService from "./service"

export const FITROOM_MODULE = "fitroom"

export default Module(FITROOM_MODULE, { service: FitroomModuleService })

export { FitroomModuleService }
export type { ResolvedOptions, FitroomPluginOptions } from "./options"
