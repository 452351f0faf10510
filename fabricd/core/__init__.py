"""The rules of each contract, in plain Python: no grpc, lmdb or protobuf."""
