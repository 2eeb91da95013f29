"""CLI commands; each module defines `register(app)`. Shared helpers live in `_common`."""
