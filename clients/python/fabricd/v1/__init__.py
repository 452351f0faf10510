"""Generated from protos/fabricd/v1 by scripts/gen-protos. Do not edit."""
