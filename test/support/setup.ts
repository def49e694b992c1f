// Per-file test setup.
