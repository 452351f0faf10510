"""Generated from third_party/protos/lf/a2a/v1 (the Agent2Agent protocol, lf.a2a.v1) by scripts/gen-protos. Do not edit."""
