#!/usr/bin/env bash
# Issue 53's GPU table on a lent GPU: member-steps/s against stack size for each family 002's paper profile
# trains (LSTM, BiRNN, deep MLP, Transformer) and 000's paper MLP, with FLOPs per member-step and the share of
# the device's fp32 matmul GFLOP/s (bench_population.py, one JSON per family, written row by row so a family
# stopped by its time limit keeps its finished rows); then 004's ResNet-18 at its sizes (bench_resnet.py).
# Everything comes back as one file, $OUT/families.tgz (a device call returns at most 8 files: a slice can follow
# in the same call). About 7 minutes at 45 s per family.
#   bash benchmarks/gpu_families.sh [SECONDS_PER_FAMILY]
set -u
per=${1:-45}
[ -d .whl ] && { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 3; }  # the device image lacks pydantic (results/PLAN.md)
export PYTHONPATH=/tmp/site:$PWD/src PYTHONUNBUFFERED=1 MPLBACKEND=Agg
dir=/tmp/families; mkdir -p "$dir"; log=$dir/families.log
nvidia-smi --query-gpu=name --format=csv,noheader > "$log" 2>&1
# a unit's start in measured terms (process, imports, CUDA context and first step): the cost model's start on
# this device, in place of the fitted 101 s (issue 66); about 40 s at 3 repeats
timeout 90 python3 benchmarks/start_cost.py --device cuda --repeats 3 --json "$dir/start_cuda.json" >> "$log" 2>&1
echo "start rc $?" >> "$log"
for model in lstm birnn deep_mlp transformer002 mlp; do
    batches=own; [ "$model" = mlp ] && batches=512,64
    timeout "$per" python3 benchmarks/bench_population.py --device cuda --model "$model" --members 1,16,64,256 \
        --batches "$batches" --repeats 3 --seconds 0.5 --json "$dir/$model.json" >> "$log" 2>&1
    echo "$model rc $?" >> "$log"
done
# 004's ResNet-18 at its sizes (224 px, batch 200, TF32 convolutions as its profile trains), then with the forward in
# bfloat16 autocast (amp=bf16): ms per step and one run's hours, so the window says whether a run fits one command
{
    timeout 60 python3 benchmarks/bench_resnet.py --device cuda --case paper --steps 10 --repeats 3 \
        --json "$dir/resnet.json" 2>&1
    echo "resnet rc $?"
    timeout 60 python3 benchmarks/bench_resnet.py --device cuda --case paper --steps 10 --repeats 3 --amp \
        --json "$dir/resnet_amp.json" 2>&1
    echo "resnet amp rc $?"
} >> "$log"
tar czf "$OUT/families.tgz" -C /tmp families
cat "$log"
