#!/usr/bin/env bash
# Builds examples at several revisions and stages them side by side for an A/B run on the GPU
# machine: DIR/NAME/<example> for each NAME=REV, stripped (the device tool carries 64 MiB in all,
# the working tree included). Each revision builds in its own git worktree and target directory
# under /tmp (the first build of a revision takes minutes; later ones are incremental).
#
# Usage, from the project root:
#   bench/stage_builds.sh .gpu main=main pw=producer-waits -- bench_matmul bench_linear
# then on the GPU machine, e.g.
#   for d in main pw; do BENCH_SHAPES=... .gpu/$d/bench_matmul | tail -8; done
set -eu
dir=${1:?usage: $0 DIR NAME=REV... -- EXAMPLE...}
shift
builds=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do builds+=("$1"); shift; done
shift || { echo "usage: $0 DIR NAME=REV... -- EXAMPLE..." >&2; exit 2; }
examples=("$@")
[ ${#builds[@]} -gt 0 ] && [ ${#examples[@]} -gt 0 ] || { echo "nothing to build" >&2; exit 2; }
root=$(git rev-parse --show-toplevel)
for build in "${builds[@]}"; do
  name=${build%%=*}; rev=${build#*=}
  tree=/tmp/stage-$name
  git -C "$root" worktree remove --force "$tree" 2>/dev/null || true
  git -C "$root" worktree add -q --detach "$tree" "$rev"
  args=(); for e in "${examples[@]}"; do args+=(--example "$e"); done
  # --workspace finds each example in whichever package has it (bench/, or the root before the
  # benchmarks had a crate of their own).
  (cd "$tree" && CARGO_TARGET_DIR=/tmp/stage-target-$name cargo build -q --release --workspace "${args[@]}")
  mkdir -p "$root/$dir/$name"
  for e in "${examples[@]}"; do
    cp "/tmp/stage-target-$name/release/examples/$e" "$root/$dir/$name/"
    strip "$root/$dir/$name/$e"
  done
  git -C "$root" worktree remove --force "$tree"
  echo "$name ($rev, $(git -C "$root" rev-parse --short "$rev")): ${examples[*]}"
done
du -sh "$root/$dir"
