"""Pure, Beam-free record functions and the thin Beam transforms that wrap them."""
