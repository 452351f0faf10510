"""The only code that imports lmdb: key codec, records, transactions and the single writer."""
