#!/usr/bin/env bash
# One slice of results/PLAN.md on a lent GPU: each UNIT (a study and a run glob that is one stacked
# population) is trained in turn, never side by side (four processes on one GPU ran each 3.1x slower:
# benchmarks/results/gpu_shared_vs_alone_h200.json), and a unit starts only if its estimate fits before the
# deadline, so every unit that starts finishes. With ARCHIVE=results/X each unit continues the study archived
# there (a study it lacks is trained from scratch), so a finished study is judged whole on the GPU; without
# ARCHIVE (a paper with no archive yet) each unit is trained with --only. `groklab plan ... --slices S` writes
# these commands (results/PLAN.md). The tree comes back without checkpoints as $OUT/trees.tgz (results/PLAN.md: on return).
#   bash benchmarks/gpu_slice.sh DEADLINE_S EST_S 'beyond/depth:layers3/*' 'beyond/uniformity:*' ...
set -u
for n in "${1:-}" "${2:-}"; do case "$n" in ""|*[!0-9]*)
    echo "gpu_slice: DEADLINE_S and EST_S must be whole seconds (got '${1:-}' '${2:-}')" >&2; exit 2;; esac; done
deadline=$1 est=$2; shift 2
[ $# -gt 0 ] || { echo "gpu_slice: name at least one UNIT (study:glob)" >&2; exit 2; }
[ -d .whl ] && { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 3; }  # the device image lacks pydantic (README: GPU slices)
export PYTHONPATH=/tmp/site:$PWD/src PYTHONUNBUFFERED=1 MPLBACKEND=Agg
t0=$(date +%s); log=$OUT/slice.log ok=0
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu_slice.XXXXXX")  # a folder of its own: never a fixed, shared path
nvidia-smi --query-gpu=name --format=csv,noheader > "$log" 2>&1
for unit in "$@"; do
    case "$unit" in *:?*) ;; *) echo "$unit rc 2: not STUDY:GLOB" >> "$log"; continue;; esac
    study=${unit%%:*} glob=${unit#*:}
    left=$(( deadline - ($(date +%s) - t0) ))
    if [ "$left" -lt "$est" ]; then echo "skipped $unit: ${left}s left, unit needs ~${est}s" >> "$log"; continue; fi
    s=$(date +%s)
    from=(); [ -n "${ARCHIVE:-}" ] && from=(--from "$ARCHIVE" --train-missing)  # no archive yet: trained from scratch
    timeout -s INT "$left" python3 -m groklab reproduce "$study" --profile paper --seeds 3 "device=${DEVICE:-cuda}" \
        "${from[@]}" --only "$glob" --jobs 1 --out "$work/slice" > "$OUT/$(echo "$unit" | tr -c 'A-Za-z0-9._-' _).log" 2>&1
    rc=$?; [ "$rc" -eq 0 ] && ok=$((ok + 1))
    echo "$unit rc $rc in $(( $(date +%s) - s ))s" >> "$log"
done
mkdir -p "$work/slice" && tar -C "$work" -czf "$OUT/trees.tgz" --exclude='ckpt*.pt' --exclude='.lock' slice
cat "$log"
[ "$ok" -gt 0 ] || { echo "gpu_slice: every unit failed (slice.log)" >&2; exit 1; }  # a slice of nothing is no success
