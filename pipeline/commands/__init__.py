"""One module per `kcorpus` sub-command: `add_arguments(parser)` and `main(args) -> int`."""
