#!/usr/bin/env bash
# What ptxas makes of each example kernel, for the GPU machine (ptxas and cuobjdump from CUDA):
#   cargo build --release -p tessel-kernels --examples
#   TESSEL_DUMP_PTX=ptx target/release/examples/matmul; TESSEL_DUMP_PTX=ptx target/release/examples/attention
#   bench/sass.sh ptx > bench/results/sass.txt
# Per kernel: registers, GMMA instructions by shape (HGMMA 16-bit, QGMMA fp8, IGMMA int8), STSM
# (stmatrix) count, and local-memory instructions (LDL/STL: spills), which should be none.
set -euo pipefail
dir=${1:?usage: bench/sass.sh DIR_OF_PTX}
tmp=$(mktemp -d)
echo "# $(ptxas --version | tail -1)"
for f in "$dir"/*.ptx; do
  n=$(basename "$f" .ptx)
  regs=$(ptxas -arch=sm_90a -v "$f" -o "$tmp/$n.cubin" 2>&1 | grep -o "Used [0-9]* registers" | head -1)
  cuobjdump -sass "$tmp/$n.cubin" > "$tmp/$n.sass"
  shapes=$(grep -o "[HQI]GMMA\.[0-9x]*\.[A-Z0-9]*\(\.[A-Z0-9]*\)\?" "$tmp/$n.sass" | sort | uniq -c | awk '{printf "%s x %s, ", $1, $2}')
  stsm=$(grep -c "STSM" "$tmp/$n.sass" || true)
  local=$(grep -cE "(LDL|STL)(\.|\s)" "$tmp/$n.sass" || true)
  echo "$n: $regs; ${shapes%, }; $stsm STSM; $local local-memory instructions"
done
rm -rf "$tmp"
