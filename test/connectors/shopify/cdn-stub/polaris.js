/**
 * A stand-in for https://cdn.shopify.com/shopifycloud/polaris.js in the browser test: the few
 * interactive Polaris web components the admin page uses, defined minimally (shadow DOM, `value`
 * property, `input` and `change` events on the element, `error`, `label` with
 * labelAccessibilityVisibility="exclusive"). Layout components stay undefined: the page's own
 * fallback style lays them out.
 */
/* global window, document, HTMLElement, customElements, Event */
(() => {
  const base = ':host{display:inline-block;font:13px/1.4 system-ui,sans-serif;color:#303030}';
  const hidden = 'position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)';

  class SButton extends HTMLElement {
    static observedAttributes = ['disabled', 'loading', 'variant', 'tone', 'accessibilitylabel'];
    constructor() {
      super();
      this.attachShadow({ mode: 'open' }).innerHTML = `<style>${base}
button{font:inherit;font-weight:550;border-radius:8px;padding:5px 12px;border:0;cursor:pointer;background:#fff;color:#303030;box-shadow:inset 0 -1px 0 #b5b5b5,0 0 0 1px #e3e3e3}
button.primary{background:#303030;color:#fff;box-shadow:none}button.tertiary{background:transparent;box-shadow:none;padding:5px 6px}
button.critical{color:#8e0b21}button:disabled{opacity:.55;cursor:default}</style><button type="button"><slot></slot></button>`;
      this.button = this.shadowRoot.querySelector('button');
      this.button.addEventListener('click', () => {
        const href = this.getAttribute('href');
        if (href) window.open(href, this.getAttribute('target') ?? '_self');
      });
      this.attributeChangedCallback();
    }
    attributeChangedCallback() {
      if (!this.button) return;
      this.button.disabled = this.hasAttribute('disabled') || this.hasAttribute('loading');
      this.button.className = `${this.getAttribute('variant') ?? ''} ${this.getAttribute('tone') ?? ''}`;
      const label = this.getAttribute('accessibilitylabel');
      if (label) this.button.setAttribute('aria-label', label);
      else this.button.removeAttribute('aria-label');
    }
  }

  class SField extends HTMLElement {
    static observedAttributes = ['label', 'value', 'error', 'placeholder', 'details', 'labelaccessibilityvisibility'];
    constructor() {
      super();
      this.attachShadow({ mode: 'open' }).innerHTML = `<style>${base}:host{display:inline-block;min-width:72px}
label{display:flex;flex-direction:column;gap:4px}input{font:inherit;width:100%;box-sizing:border-box;padding:5px 8px;border:1px solid #8a8a8a;border-radius:8px}
input[aria-invalid=true]{border-color:#e51c00;background:#fff4f4}.error{color:#8e0b21;font-size:12px;max-width:160px}.details{color:#616161;font-size:12px}</style>
<label><span class="label"></span><input></label><div class="details"></div><div class="error" role="alert"></div>`;
      this.input = this.shadowRoot.querySelector('input');
      if (this.numeric) this.input.inputMode = 'decimal';
      this.input.addEventListener('change', () => this.dispatchEvent(new Event('change', { bubbles: true })));
    }
    get numeric() {
      return false;
    }
    get value() {
      return this.input.value;
    }
    set value(v) {
      this.input.value = v ?? '';
    }
    attributeChangedCallback(name, _old, v) {
      const root = this.shadowRoot;
      if (name === 'label') root.querySelector('.label').textContent = v ?? '';
      else if (name === 'value') this.input.value = v ?? '';
      else if (name === 'placeholder') this.input.placeholder = v ?? '';
      else if (name === 'details') root.querySelector('.details').textContent = v ?? '';
      else if (name === 'labelaccessibilityvisibility') root.querySelector('.label').style.cssText = v === 'exclusive' ? hidden : '';
      else if (name === 'error') {
        root.querySelector('.error').textContent = v ?? '';
        this.input.setAttribute('aria-invalid', v ? 'true' : 'false');
      }
    }
  }
  class SNumberField extends SField {
    get numeric() {
      return true;
    }
  }

  class SSelect extends HTMLElement {
    constructor() {
      super();
      this.attachShadow({ mode: 'open' }).innerHTML = `<style>${base}label{display:flex;flex-direction:column;gap:4px}select{font:inherit;padding:5px 8px;border:1px solid #8a8a8a;border-radius:8px;background:#fff}</style><label><span></span><select></select></label>`;
      this.select = this.shadowRoot.querySelector('select');
      this.select.addEventListener('change', () => this.dispatchEvent(new Event('change', { bubbles: true })));
    }
    connectedCallback() {
      this.shadowRoot.querySelector('span').textContent = this.getAttribute('label') ?? '';
      this.select.replaceChildren(...[...this.querySelectorAll('s-option')].map((o) => {
        const option = document.createElement('option');
        option.value = o.getAttribute('value') ?? o.textContent;
        option.textContent = o.textContent;
        option.selected = o.hasAttribute('selected');
        return option;
      }));
    }
    get value() {
      return this.select.value;
    }
  }

  class SThumbnail extends HTMLElement {
    connectedCallback() {
      const size = this.getAttribute('size') === 'small' ? 40 : 60;
      this.attachShadow({ mode: 'open' }).innerHTML = `<img style="width:${size}px;height:${size}px;object-fit:cover;border-radius:8px;border:1px solid #e3e3e3;display:block">`;
      const img = this.shadowRoot.querySelector('img');
      img.src = this.getAttribute('src') ?? '';
      img.alt = this.getAttribute('alt') ?? '';
    }
  }

  customElements.define('s-button', SButton);
  customElements.define('s-text-field', SField);
  customElements.define('s-number-field', SNumberField);
  customElements.define('s-select', SSelect);
  customElements.define('s-thumbnail', SThumbnail);
})();
