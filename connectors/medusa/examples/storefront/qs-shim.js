/* global window */
// The SDK imports { stringify } from "qs"; qs's browser build (loaded before) puts it on window.Qs.
export const { stringify, parse } = window.Qs
export default window.Qs
