# Device call 2 (scripts/gpu_training/README.md): the GPU end-to-end benchmark alone, then
# three more fine-tunes of the bundled model side by side on one GPU.
set -x
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=true
W=${W:-/root/w}; OUT=${OUT:-/tmp/out}; mkdir -p $W $OUT
python3 -c "import tarfile; tarfile.open('.whl2/site312.tar.xz').extractall('/tmp/site', filter='data')"
[ -z "$LOCAL" ] && export PYTHONPATH=/tmp/site:$PWD
timeout ${BENCH_S:-150} python3 scripts/gpu_training/gpu_end_to_end.py --data .carry2/data \
  --out $OUT --per-set ${PER_SET:-60} > $W/bench.log 2>&1; tail -n 30 $W/bench.log
tar xJf .carry/data2.tar.xz -C $W; D=$W/data
sed -n 1,40000p $D/nli_all.jsonl > $D/n0.jsonl
sed -n 25001,75000p $D/nli_all.jsonl > $D/n1.jsonl
sed -n 40001,75000p $D/nli_all.jsonl > $D/n3.jsonl
cat $D/train.jsonl $D/train.jsonl > $D/task2.jsonl
cat $D/task2.jsonl $D/train.jsonl > $D/task3.jsonl
C="--base-model models/nli-faith-minilm-l6 --dev $D/dev_select.jsonl --batch-size 64 --warmup-ratio 0.06 --max-length 320 --freeze-embeddings --save-steps ${SAVE:-500} --save-fp16 --time-budget ${TB:-330} --logging-steps 100 $EXTRA"
python3 -m nli_faith.cli train $C --learning-rate 2e-5 --seed 2 --train $D/n1.jsonl $D/task2.jsonl $D/replay.jsonl --epochs 2 -o $W/B1 > $W/B1.log 2>&1 &
python3 -m nli_faith.cli train $C --learning-rate 2e-5 --seed 3 --train $D/n0.jsonl $D/task3.jsonl $D/replay.jsonl --epochs 3 -o $W/B2 > $W/B2.log 2>&1 &
python3 -m nli_faith.cli train $C --learning-rate 3e-5 --seed 4 --train $D/n3.jsonl $D/task2.jsonl $D/replay.jsonl --epochs 2 -o $W/B3 > $W/B3.log 2>&1 &
wait
mkdir -p $W/x; python3 scripts/gpu_training/export_delta.py export $W/x $W/B1 $W/B2 $W/B3
python3 -c "import json,sys,pathlib; x=pathlib.Path(sys.argv[1]); json.dump({p.stem: json.loads(p.read_text()) for p in sorted(x.glob('*.json'))}, open(sys.argv[2],'w'), indent=1)" $W/x $OUT/runs.json
for n in B1 B2 B3; do [ -f $W/x/$n.safetensors ] && split -b 15M $W/x/$n.safetensors $OUT/$n.st.; tail -n 3 $W/$n.log; done
ls -la $OUT
