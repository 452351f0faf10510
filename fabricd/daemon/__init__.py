"""Config, lifecycle, signals, sd_notify and the `fabricd` entry point."""
