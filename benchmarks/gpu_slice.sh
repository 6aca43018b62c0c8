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
deadline=$1 est=$2; shift 2
[ -d .whl ] && { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 3; }  # the device image lacks pydantic (README: GPU slices)
export PYTHONPATH=/tmp/site:$PWD/src PYTHONUNBUFFERED=1 MPLBACKEND=Agg
t0=$(date +%s); log=$OUT/slice.log
nvidia-smi --query-gpu=name --format=csv,noheader > "$log" 2>&1
for unit in "$@"; do
    study=${unit%%:*} glob=${unit#*:}
    left=$(( deadline - ($(date +%s) - t0) ))
    if [ "$left" -lt "$est" ]; then echo "skipped $unit: ${left}s left, unit needs ~${est}s" >> "$log"; continue; fi
    s=$(date +%s)
    from=(); [ -n "${ARCHIVE:-}" ] && from=(--from "$ARCHIVE" --train-missing)  # no archive yet: trained from scratch
    timeout -s INT "$left" python3 -m groklab reproduce "$study" --profile paper --seeds 3 "device=${DEVICE:-cuda}" \
        "${from[@]}" --only "$glob" --jobs 1 --out /tmp/slice > "$OUT/$(echo "$unit" | tr -c 'A-Za-z0-9._-' _).log" 2>&1
    echo "$unit rc $? in $(( $(date +%s) - s ))s" >> "$log"
done
mkdir -p /tmp/slice && cd /tmp && tar czf "$OUT/trees.tgz" --exclude='ckpt*.pt' --exclude='.lock' slice
cat "$log"
