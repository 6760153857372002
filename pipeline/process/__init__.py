"""How a kcorpus process ends when it is told to: `interrupt.py` (Ctrl-C and SIGTERM: one line, the lock
released, the local Beam workers ended, exit 130 / 143)."""
