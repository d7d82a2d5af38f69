"""Tool tables of the frameworks safehold plugs into, as data (see `safehold.adapters.tool_table`)."""
