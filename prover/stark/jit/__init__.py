"""The prover's compiled kernels (numba, cached on disk next to these files). Imported only through
prover/stark/kernels.py, which chooses between them and their numpy twins."""
