#!/usr/bin/env bash
# Issue 53's GPU table on a lent GPU: member-steps/s against stack size for each family 002's paper profile
# trains (LSTM, BiRNN, deep MLP, Transformer) and 000's paper MLP, with FLOPs per member-step and the share of
# the device's fp32 matmul GFLOP/s (bench_population.py), JSON per family in $OUT; then 004's ResNet-18 at its
# sizes (bench_resnet.py). About 7 minutes on an H100.
#   bash benchmarks/gpu_families.sh [SECONDS_PER_FAMILY]
set -u
per=${1:-70}
[ -d .whl ] && { python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 3; }  # the device image lacks pydantic (results/PLAN.md)
export PYTHONPATH=/tmp/site:$PWD/src PYTHONUNBUFFERED=1 MPLBACKEND=Agg
nvidia-smi --query-gpu=name --format=csv,noheader > "$OUT/families.log" 2>&1
for model in lstm birnn deep_mlp transformer002 mlp; do
    batches=own; [ "$model" = mlp ] && batches=512,64
    timeout "$per" python3 benchmarks/bench_population.py --device cuda --model "$model" --members 1,16,64,256 \
        --batches "$batches" --repeats 3 --seconds 0.5 --json "$OUT/$model.json" >> "$OUT/families.log" 2>&1
    echo "$model rc $?" >> "$OUT/families.log"
done
# 004's ResNet-18 at its sizes (224 px, batch 200, TF32 convolutions as its profile trains): ms per step, one run's hours
timeout 90 python3 benchmarks/bench_resnet.py --device cuda --case paper --steps 10 --repeats 3 \
    --json "$OUT/resnet.json" >> "$OUT/families.log" 2>&1
echo "resnet rc $?" >> "$OUT/families.log"
cat "$OUT/families.log"
