"""The only code that imports grpc: thin servicers, the error table, server wiring."""
