"""Adapters translate between safehold's policy core and the outside world (ACP, bwrap)."""
