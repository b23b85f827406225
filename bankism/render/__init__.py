"""Output renderers shared by the front ends: self-contained HTML pages and SVG bank maps (``html``)."""
