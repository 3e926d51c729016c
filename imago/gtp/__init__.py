"""The GTP front end: line I/O, the command table, analysis commands, the CLI."""
