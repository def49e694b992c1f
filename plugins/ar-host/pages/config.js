/* global self */
// Runs before model-viewer: decoders come from this host, never from a CDN.
self.ModelViewerElement = self.ModelViewerElement || {};
self.ModelViewerElement.meshoptDecoderLocation = '/tryon/assets/meshopt_decoder.js';
