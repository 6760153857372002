"""Pipeline assembly: stages, options and the `kcorpus` command-line entry point."""
