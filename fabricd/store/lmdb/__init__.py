"""The embedded default backend: LMDB in one data folder (key codec, records, the writer, operators' tools)."""
