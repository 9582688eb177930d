"""Sources → parse → clean → chunk → embed → store."""
