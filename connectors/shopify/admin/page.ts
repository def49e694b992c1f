/**
 * The embedded admin's page: App Bridge and Polaris web components from Shopify's CDN (App Bridge
 * first, both blocking, as Shopify requires), the sections the script fills in, and a fallback style
 * that keeps the page readable if the components have not been defined (a CDN that failed to load).
 */
export function adminPage(apiKey: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="shopify-api-key" content="${escapeHtml(apiKey)}">
<script src="https://cdn.shopify.com/shopifycloud/app-bridge.js"></script>
<script src="https://cdn.shopify.com/shopifycloud/polaris.js"></script>
<title>Fitroom</title>
<style>${FALLBACK_CSS}</style>
<script type="module" src="/shopify/app/admin.js"></script>
</head>
<body>
<s-page heading="Fitroom">
  <div id="notice"></div>
  <s-section heading="Get started" id="setup">
    <s-stack gap="base">
      <s-paragraph id="setup-progress">Loading your setup…</s-paragraph>
      <s-stack gap="base" id="checklist"></s-stack>
      <s-stack direction="inline" gap="base"><s-button id="recheck">Check again</s-button></s-stack>
    </s-stack>
  </s-section>
  <s-section heading="This month" id="usage">
    <s-stack gap="base">
      <s-grid gap="base" id="figures"></s-grid>
      <s-box id="plan"></s-box>
    </s-stack>
  </s-section>
  <s-section heading="Products and 3D models" id="products">
    <s-stack gap="base">
      <s-paragraph>Fitroom builds a 3D model from a product's photos and adds it to the product's media; Shopify makes the AR version for iPhones itself.</s-paragraph>
      <s-stack direction="inline" gap="base">
        <s-button id="pick-products">Generate 3D for products…</s-button>
        <s-button id="pick-collection">Generate 3D for a collection…</s-button>
      </s-stack>
      <div id="product-list"></div>
    </s-stack>
  </s-section>
  <s-section heading="Size chart" id="chart">
    <s-stack gap="base">
      <s-paragraph>Body measurements each size fits, smallest size first. "Find my size" compares a shopper's measurements with them.</s-paragraph>
      <s-stack direction="inline" gap="base">
        <s-button id="chart-product">Choose product…</s-button>
        <s-text id="chart-product-title" color="subdued">No product chosen</s-text>
      </s-stack>
      <s-stack direction="inline" gap="base" id="chart-options"></s-stack>
      <div id="chart-errors"></div>
      <div id="chart-table"></div>
      <s-stack direction="inline" gap="base" id="chart-actions"></s-stack>
    </s-stack>
  </s-section>
  <s-section heading="Plan" id="billing"><div id="billing-body"></div></s-section>
  <s-section heading="Customer data requests" id="requests"><div id="requests-body"></div></s-section>
  <s-section heading="Privacy" id="privacy">
    <s-stack gap="base"><div id="retention"></div><div id="compliance"></div></s-stack>
  </s-section>
</s-page>
</body></html>`;
}

/** Only for elements Polaris has not defined (`:not(:defined)`); once it has, its own styles apply. */
const FALLBACK_CSS = `
body{margin:0;background:#f1f1f1;color:#303030;font:13px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",sans-serif}
s-page:not(:defined){display:block;max-width:1040px;margin:0 auto;padding:16px 20px}
s-page[heading]:not(:defined)::before{content:attr(heading);display:block;font-size:20px;font-weight:650;margin:4px 0 16px}
s-section:not(:defined){display:block;background:#fff;border-radius:12px;padding:16px;margin-bottom:16px;box-shadow:0 1px 0 rgba(26,26,26,.07),0 0 0 1px rgba(0,0,0,.07)}
s-section[heading]:not(:defined)::before{content:attr(heading);display:block;font-size:14px;font-weight:650;margin-bottom:12px}
s-stack:not(:defined){display:flex;flex-direction:column;gap:12px}
s-stack[direction=inline]:not(:defined){flex-direction:row;flex-wrap:wrap;align-items:center;gap:8px}
s-stack[justifycontent=space-between]:not(:defined){justify-content:space-between;flex-wrap:nowrap}
s-stack[alignitems=end]:not(:defined){align-items:flex-end}
s-grid:not(:defined){display:grid;gap:12px;grid-template-columns:repeat(auto-fit,minmax(170px,1fr))}
s-box:not(:defined){display:block}
s-box[border]:not(:defined){border:1px solid #e3e3e3;border-radius:10px;padding:12px}
s-heading:not(:defined){display:block;font-weight:650;font-size:14px}
s-paragraph:not(:defined){display:block;margin:0}
s-text[color=subdued]:not(:defined){color:#616161}
s-text[type=strong]:not(:defined){font-weight:650}
s-badge:not(:defined){display:inline-block;align-self:flex-start;padding:1px 8px;border-radius:8px;background:#e3e3e3;font-size:12px;white-space:nowrap}
s-badge[tone=success]:not(:defined){background:#cdfee1;color:#0c5132}
s-badge[tone=warning]:not(:defined){background:#ffeb78;color:#4f4700}
s-badge[tone=critical]:not(:defined){background:#fedad9;color:#8e0b21}
s-badge[tone=info]:not(:defined){background:#e0f0ff;color:#00527c}
s-banner:not(:defined){display:block;padding:12px;border-radius:10px;background:#e0f0ff;margin-bottom:12px}
s-banner[tone=critical]:not(:defined){background:#fedad9}
s-banner[tone=warning]:not(:defined){background:#fff1b8}
s-banner[heading]:not(:defined)::before{content:attr(heading);display:block;font-weight:650}
s-table:not(:defined){display:table;width:100%;border-collapse:collapse}
s-table-header-row:not(:defined),s-table-row:not(:defined){display:table-row}
s-table-body:not(:defined){display:table-row-group}
s-table-header:not(:defined){display:table-cell;padding:6px 8px;font-weight:650;color:#616161;border-bottom:1px solid #e3e3e3;text-align:left}
s-table-cell:not(:defined){display:table-cell;padding:6px 8px;border-bottom:1px solid #f1f1f1;vertical-align:middle}
s-link:not(:defined){color:#005bd3;text-decoration:underline;cursor:pointer}
.fr-meter{height:8px;border-radius:4px;background:#e3e3e3;overflow:hidden;max-width:360px}
.fr-meter>span{display:block;height:100%;background:#303030}
.fr-range{display:flex;align-items:flex-start;gap:4px;min-width:170px}
`;

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
