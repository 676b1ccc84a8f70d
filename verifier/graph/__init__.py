"""Graph statements: the settings.bin encoding of a model, its AIR components, and the public
terms the verifier computes itself."""
