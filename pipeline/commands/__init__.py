"""CLI commands; each module defines `register(app)`. Shared helpers live in `_common`, the options
several commands share in `_options` (each declared once)."""
