/**
 * A stand-in for https://cdn.shopify.com/shopifycloud/app-bridge.js in the browser test: the
 * `shopify` global with the calls the admin page makes. The test sets `window.__shopifyStub`
 * (session token, what the resource picker returns) before the page loads; calls are recorded.
 */
/* global window, document */
(() => {
  const cfg = window.__shopifyStub;
  const calls = (window.__shopifyCalls = { toasts: [], pickers: [], opened: [] });
  window.shopify = {
    config: { apiKey: document.querySelector('meta[name="shopify-api-key"]')?.content, shop: cfg.shop },
    idToken: async () => cfg.token,
    resourcePicker: async (options) => {
      calls.pickers.push(options);
      const chosen = cfg.picks[options.type] ?? [];
      return options.multiple ? chosen : chosen.slice(0, 1);
    },
    toast: { show: (message, options) => void calls.toasts.push({ message, isError: Boolean(options?.isError) }) },
  };
  // App Bridge routes window.open(url, '_top') to the admin; the test only records it
  window.open = (url, target) => void calls.opened.push({ url: String(url), target });
})();
