// `medusa exec` boots the store (modules, their loaders) and runs this: used to check a start.
export default async function boot() {
  console.log("fitroom-test-store booted")
}
