//! The collectives of `kernels` on a group of GPUs, against the interpreter's results.
