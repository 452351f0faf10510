"""The `fabric` command line: talk to a fabricd from a shell."""
