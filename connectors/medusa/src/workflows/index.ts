export { generateProductModelWorkflow, storeProductModelWorkflow, productPhotos } from "./product-model"
export { advanceProductModel } from "./advance"
