//! Binding a launch: arguments against the kernel's parameters (count, kinds, dtypes, ranks,
//! runtime dimensions, divisibility), the grid, the rules of the TMA tensor maps, and writing
//! outputs back. The checks, their order and their messages are those of the generated
//! `check_args` that a GPU launch runs first (`tessel::__private::{bind_shape, dim_i32,
//! grid_extent, LaunchPlan}`) and of the tensor maps it encodes then, so `launch` and `interpret`
//! fail alike on the same bad arguments.

use std::sync::atomic::{AtomicBool, AtomicU64};

use tessel_ir::ops::UnOp;
use tessel_ir::types::DType;

use super::exec::{Launch, ParamValue};
use super::memory::{cells, load, GlobalBuf};
use super::numeric::{error, round};
use super::race::Detector;
use super::semaphore::wait_limit;
use super::value::Scalar;
use super::{Arg, HostArray};
use crate::{
    check_divisible, check_ragged, check_rank, launches_nothing, Dims, Error, LaunchConfig, Result, TensorMapLayout,
};
use tessel_ir::program::{DimSpec, Expr, ExprKind, LitValue, Literal, ParamInfo, ParamKind, Program};

/// Checks `args` against the kernel and binds them: global arrays become shared `f64` buffers.
/// `None` for a launch with nothing to do (`launches_nothing`: an empty batch).
pub(crate) fn bind(prog: &'static Program, args: &[Arg<'_>]) -> Result<Option<Launch>> {
    bind_group(prog, &[args])
}

/// [`bind`] for a kernel of several devices: `ranks[d]` are device `d`'s arguments. Every device's
/// are checked (as one device's launch checks them), and each tensor has one shape on every
/// device ([`Error::RankShape`]), before anything runs.
pub(crate) fn bind_group(prog: &'static Program, ranks: &[&[Arg<'_>]]) -> Result<Option<Launch>> {
    let mut bound = Vec::with_capacity(ranks.len());
    for args in ranks {
        bound.push(check(prog, args)?);
    }
    check_same_shapes(prog, ranks)?;
    let Some(Some(first)) = bound.first() else { return Ok(None) };
    let dim_values = first.1.clone();
    let params = bound.into_iter().flatten().flat_map(|(params, _)| params).collect();
    let mut launch = Launch {
        params,
        devices: ranks.len(),
        dims: dim_values.iter().map(|&v| v as i64).collect(),
        grid: [1; 3],
        halted: AtomicBool::new(false),
        progress: AtomicU64::new(0),
        wait_limit: wait_limit()?,
        race: None,
        start: std::time::Instant::now(),
    };
    launch.grid = grid(prog, &launch)?;
    launch.race = Detector::for_launch(prog, launch.grid, ranks.len())?;
    Ok(Some(launch))
}

/// Every tensor of device `d` has device 0's shape: one kernel, one grid, on every device.
fn check_same_shapes(prog: &'static Program, ranks: &[&[Arg<'_>]]) -> Result<()> {
    let shape = |a: Option<&Arg<'_>>| match a {
        Some(Arg::Tensor(t)) => Some(t.shape().to_vec()),
        Some(Arg::TensorMut(t)) => Some(t.shape().to_vec()),
        _ => None,
    };
    for (i, p) in prog.params.iter().enumerate() {
        let Some(first) = shape(ranks.first().and_then(|a| a.get(i))) else { continue };
        for (rank, args) in ranks.iter().enumerate().skip(1) {
            let got = shape(args.get(i)).unwrap_or_default();
            if got != first {
                return Err(Error::RankShape { argument: p.name.as_str(), rank, expected: first, got });
            }
        }
    }
    Ok(())
}

/// One device's arguments checked against the kernel: its bound parameters and runtime
/// dimensions, or `None` for a launch with nothing to do.
type Checked = Option<(Vec<ParamValue>, Vec<usize>)>;

fn check(prog: &'static Program, args: &[Arg<'_>]) -> Result<Checked> {
    if args.len() != prog.params.len() {
        return Err(error(format!(
            "`{}` takes {} arguments, but {} were given",
            prog.name,
            prog.params.len(),
            args.len()
        )));
    }
    let mut dims = Dims::new();
    for (p, a) in prog.params.iter().zip(args) {
        if let ParamKind::Gmem { dtype, shape, mutable, .. } = &p.kind {
            let t = tensor(prog, p, a, *mutable)?;
            check_tensor(prog, p, t, *dtype, shape, &mut dims)?;
        }
    }
    let dim_values = prog.runtime_dims.iter().map(|d| dims.get(d)).collect::<Result<Vec<usize>>>()?;
    for (dim, extent, why) in &prog.divisibility {
        check_divisible(&prog.runtime_dims[*dim], dim_values[*dim], *extent, why)?;
    }
    for &dim in &prog.ragged {
        check_ragged(&prog.runtime_dims[dim], dim_values[dim])?;
    }
    if !prog.ragged.is_empty() {
        let ragged: Vec<usize> = prog.ragged.iter().map(|&d| dim_values[d]).collect();
        if launches_nothing(&ragged, &written_shapes(prog, args)) {
            return Ok(None);
        }
    }
    let params = prog.params.iter().zip(args).map(|(p, a)| param_value(prog, p, a)).collect::<Result<_>>()?;
    for (name, &v) in prog.runtime_dims.iter().zip(&dim_values) {
        if i32::try_from(v).is_err() {
            return Err(Error::Launch(format!(
                "runtime dimension {name} = {v} is larger than {}, the most a kernel indexes",
                i32::MAX
            )));
        }
    }
    check_tensor_maps(prog, args)?;
    Ok(Some((params, dim_values)))
}

/// The shapes of the arrays the kernel writes (`GmemMut`), as passed.
fn written_shapes<'a>(prog: &'static Program, args: &'a [Arg<'_>]) -> Vec<&'a [usize]> {
    prog.params
        .iter()
        .zip(args)
        .filter_map(|(p, a)| match (&p.kind, a) {
            (ParamKind::Gmem { mutable: true, .. }, Arg::TensorMut(t)) => Some(t.shape()),
            _ => None,
        })
        .collect()
}

/// The rules of the TMA tensor maps a launch would encode over these tensors (16-byte row
/// strides, extents, box sizes): a tensor the GPU's launch refuses is refused here too. (Host
/// tensors have no device address, so the base address's alignment is not checked.)
fn check_tensor_maps(prog: &'static Program, args: &[Arg<'_>]) -> Result<()> {
    for map in &prog.tensor_maps {
        let shape = match args.get(map.param) {
            Some(Arg::Tensor(t)) => t.shape(),
            Some(Arg::TensorMut(t)) => t.shape(),
            _ => return Err(Error::Internal(format!("a tensor map over argument {}", map.param))),
        };
        let Some(p) = prog.params.get(map.param) else {
            return Err(Error::Internal(format!("a tensor map over parameter {}", map.param)));
        };
        let ParamKind::Gmem { dtype, .. } = &p.kind else {
            return Err(Error::Internal(format!("a tensor map over scalar `{}`", p.name)));
        };
        let elem_bytes = dtype.elem_bytes() as usize;
        let internal = || Error::Internal(format!("the tensor map over `{}`: {map:?}", p.name));
        let box_shape = map.box_shape.iter().map(|&b| u32::try_from(b).ok()).collect::<Option<Vec<u32>>>();
        let box_shape = box_shape.ok_or_else(internal)?;
        TensorMapLayout::row_major(&p.name, 0, shape, elem_bytes, &box_shape, map.swizzle)?.validate(&p.name)?;
    }
    Ok(())
}

/// The tensor passed for a global parameter.
fn tensor<'a>(
    prog: &'static Program,
    p: &'static ParamInfo,
    a: &'a Arg<'_>,
    mutable: bool,
) -> Result<&'a dyn HostArray> {
    match a {
        Arg::TensorMut(t) => Ok(&**t),
        Arg::Tensor(_) if mutable => Err(error(format!(
            "`{}`: parameter `{}` is written (`GmemMut`), so it needs a mutable tensor",
            prog.name, p.name
        ))),
        Arg::Tensor(t) => Ok(*t),
        other => Err(error(format!(
            "`{}`: parameter `{}` is a global array, but the argument is {}",
            prog.name,
            p.name,
            other.describe()
        ))),
    }
}

/// Dtype, rank, runtime dimensions and static dimensions of one tensor (`bind_shape`).
fn check_tensor(
    prog: &'static Program,
    p: &'static ParamInfo,
    t: &dyn HostArray,
    dtype: DType,
    shape: &[DimSpec],
    dims: &mut Dims,
) -> Result<()> {
    if t.dtype() != dtype.name() {
        return Err(error(format!(
            "`{}`: parameter `{}` holds {dtype}, but the tensor holds {}",
            prog.name,
            p.name,
            t.dtype()
        )));
    }
    check_rank(&p.name, t.shape(), shape.len())?;
    let mut static_mismatch = false;
    for (axis, (d, &got)) in shape.iter().zip(t.shape()).enumerate() {
        match d {
            DimSpec::Runtime(i) => {
                dims.bind(&prog.runtime_dims[*i], &p.name, axis, got)?;
            }
            DimSpec::Static(v) => static_mismatch |= *v != got,
        }
    }
    if !static_mismatch {
        return Ok(());
    }
    let expected = shape
        .iter()
        .zip(t.shape())
        .map(|(d, &g)| match d {
            DimSpec::Static(v) => *v,
            DimSpec::Runtime(_) => g,
        })
        .collect();
    Err(Error::ShapeMismatch { tensor: &p.name, expected, got: t.shape().to_vec() })
}

/// A parameter's bound value: a tensor's elements, or a scalar of the parameter's dtype.
fn param_value(prog: &'static Program, p: &'static ParamInfo, a: &Arg<'_>) -> Result<ParamValue> {
    match &p.kind {
        ParamKind::Gmem { dtype, mutable, .. } => {
            let t = tensor(prog, p, a, *mutable)?;
            let shape = t.shape().to_vec();
            let expected = shape.iter().product::<usize>();
            let values = t.read_f64();
            if values.len() != expected {
                return Err(Error::ElementCount { tensor: &p.name, shape, expected, got: values.len() });
            }
            let data = cells(expected, 0.0);
            for (cell, v) in data.iter().zip(&values) {
                cell.store(round(*dtype, *v).to_bits(), std::sync::atomic::Ordering::Relaxed);
            }
            Ok(ParamValue::Gmem(GlobalBuf { dtype: *dtype, shape, data }))
        }
        ParamKind::Scalar(dtype) => {
            let s = match (dtype, a) {
                (DType::I32, Arg::I32(v)) => Scalar::Int(i64::from(*v), DType::I32),
                (DType::U32, Arg::U32(v)) => Scalar::Int(i64::from(*v), DType::U32),
                (DType::I64, Arg::I64(v)) => Scalar::Int(*v, DType::I64),
                (DType::U64, Arg::U64(v)) => Scalar::Int(*v as i64, DType::U64),
                (DType::F32, Arg::F32(v)) => Scalar::Float(f64::from(*v), DType::F32),
                _ => {
                    return Err(error(format!(
                        "`{}`: parameter `{}` is a {dtype} scalar, but the argument is {}",
                        prog.name,
                        p.name,
                        a.describe()
                    )))
                }
            };
            Ok(ParamValue::Scalar(s))
        }
    }
}

/// The grid, from the attribute's expressions in checked `i64` arithmetic, checked as a launch
/// checks it (`grid_extent`, `LaunchConfig::validate`, whole clusters).
fn grid(prog: &'static Program, launch: &Launch) -> Result<[usize; 3]> {
    let mut grid = [1u32; 3];
    for (axis, (e, text)) in prog.grid.iter().zip(&prog.grid_text).enumerate() {
        let name = ["x", "y", "z"][axis];
        let fail = |what: String| Error::Launch(format!("`{}`: the grid's {name} extent `{text}` {what}", prog.name));
        grid[axis] = match grid_value(e, launch) {
            None => return Err(fail("overflows or divides by zero at these dimensions".into())),
            Some(v) if v < 1 => {
                return Err(fail(format!(
                    "is {v}, but must be at least 1 (is a runtime dimension smaller than a tile?)"
                )))
            }
            Some(v) => u32::try_from(v).map_err(|_| fail(format!("is {v}, more than a grid can have")))?,
        };
    }
    let block = [128 * prog.warpgroups as u32, 1, 1];
    let dynamic_smem = u32::try_from(prog.smem_bytes + 1024).unwrap_or(u32::MAX);
    LaunchConfig { grid, block, dynamic_smem }.validate(&prog.name)?;
    let cluster = prog.cluster.map(|c| c as u32);
    if grid.iter().zip(&cluster).any(|(&g, &c)| c == 0 || g % c != 0) {
        return Err(Error::Launch(format!(
            "`{}`: the grid {grid:?} is not a whole number of clusters of {cluster:?}; make each grid extent a \
             multiple of the cluster's",
            prog.name
        )));
    }
    Ok(grid.map(|g| g as usize))
}

/// A grid expression's value, `None` once anything overflowed or divided by zero (the launch's
/// `GridValue`): integer literals, consts, runtime dimensions, integer parameters, casts (which
/// grids ignore), negation and integer operators.
fn grid_value(e: &Expr, launch: &Launch) -> Option<i64> {
    match &e.kind {
        ExprKind::Lit(Literal { value: LitValue::Int(v), .. }) | ExprKind::Const(v) => Some(*v),
        ExprKind::Dim(i) => launch.dims.get(*i).copied(),
        ExprKind::Local(slot) => match launch.params.get(*slot)? {
            ParamValue::Scalar(Scalar::Int(v, DType::U64)) => i64::try_from(*v as u64).ok(),
            ParamValue::Scalar(Scalar::Int(v, _)) => Some(*v),
            _ => None,
        },
        ExprKind::ScalarCast { value, .. } => grid_value(value, launch),
        ExprKind::Unary { op: UnOp::Neg, operand } => grid_value(operand, launch)?.checked_neg(),
        ExprKind::Binary { op, lhs, rhs } => {
            let (a, b) = (grid_value(lhs, launch)?, grid_value(rhs, launch)?);
            op.eval_i64(a, b)
        }
        _ => None,
    }
}

/// Writes every `GmemMut` buffer of device `device` back into its tensor.
pub(crate) fn write_back(prog: &'static Program, launch: &Launch, device: usize, args: &mut [Arg<'_>]) {
    let n = prog.params.len();
    for ((p, v), a) in prog.params.iter().zip(launch.params.iter().skip(device * n)).zip(args) {
        if let (ParamKind::Gmem { mutable: true, .. }, ParamValue::Gmem(g), Arg::TensorMut(t)) = (&p.kind, v, a) {
            let values: Vec<f64> = (0..g.data.len()).map(|i| load(&g.data, i)).collect();
            t.write_f64(&values);
        }
    }
}
