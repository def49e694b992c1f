import { defineWidgetConfig } from "@medusajs/admin-sdk"
import type { DetailWidgetProps, AdminProductCategory } from "@medusajs/framework/types"
import { Container, Heading, Text } from "@medusajs/ui"
import { SizeChartEditor } from "../components/size-chart-editor"

/** A category's size chart: products of the category without a chart of their own use it. */
const FitroomCategoryWidget = ({ data: category }: DetailWidgetProps<AdminProductCategory>) => (
  <Container className="divide-y p-0">
    <div className="px-6 py-4">
      <Heading level="h2">Fitroom</Heading>
      <Text size="small" className="text-ui-fg-subtle">Products in this category without a size chart of their own use this one.</Text>
    </div>
    <SizeChartEditor target={{ category_id: category.id }} />
  </Container>
)

export const config = defineWidgetConfig({ zone: "product_category.details.after" })

export default FitroomCategoryWidget
