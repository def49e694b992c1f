// Medusa loads modules, routes and subscribers with a native require(): .ts files need a require hook.
import { register } from "tsx/cjs/api"

register()
