# One device call (scripts/gpu_training/README.md): two fine-tunes of the bundled model side by side on one GPU.
set -x
export PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=true
W=${W:-/root/w}; OUT=${OUT:-/tmp/out}; mkdir -p $W $OUT
nvidia-smi --query-gpu=name,memory.total --format=csv
python3 -c "import torch,transformers;print(torch.__version__,transformers.__version__,torch.cuda.is_available())"
tar xJf .carry/data.tar.xz -C $W; D=$W/data
NA=${NA:-150000}; NB=${NB:-40000}
head -n $NA $D/nli_all.jsonl > $D/nliA.jsonl
head -n $NB $D/nli_all.jsonl > $D/nliB.jsonl
cat $D/train.jsonl $D/train.jsonl > $D/task2.jsonl
C="--base-model models/nli-faith-minilm-l6 --dev $D/dev_select.jsonl --batch-size 64 --learning-rate 2e-5 --warmup-ratio 0.06 --max-length 320 --freeze-embeddings --save-steps ${SAVE:-500} --save-fp16 --time-budget ${TB:-400} --logging-steps 100 $EXTRA"
python3 -m nli_faith.cli train $C --train $D/nliA.jsonl $D/task2.jsonl $D/replay.jsonl --epochs 1 -o $W/A > $OUT/A.log 2>&1 &
sleep 2
python3 -m nli_faith.cli train $C --train $D/nliB.jsonl $D/task2.jsonl $D/replay.jsonl --epochs 2 -o $W/B > $OUT/B.log 2>&1 &
wait
mkdir -p $W/x; python3 scripts/gpu_training/export_delta.py export $W/x $W/A $W/B
cp $W/x/*.json $OUT/
for n in A B; do [ -f $W/x/$n.safetensors ] && split -b 15M $W/x/$n.safetensors $OUT/$n.st.; done
{ tail -n 40 $OUT/A.log; echo ====; tail -n 40 $OUT/B.log; } > $W/logs.txt
rm $OUT/A.log $OUT/B.log; mv $W/logs.txt $OUT/
ls -la $OUT
