//! Kernels of several devices (`devices = W`): collectives written in the language, run by the
//! interpreter on 1, 2 and 4 simulated devices (`interp`) and on a group of GPUs (`gpu`), against
//! f64 references (`kernels`).

mod gpu;
mod interp;
mod kernels;
