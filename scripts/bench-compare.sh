#!/usr/bin/env bash
# Times two builds of slabcast side by side on one GPU: `slabcast bench` and `prim_bench` of a baseline build and of
# the current one, run in turns (baseline, current, baseline, current, ...) so that drift of the machine touches both,
# then compares them row by row. For a change that must leave speed alone (a refactor, a dependency update).
#
#   scripts/bench-compare.sh BASE_BIN_DIR NEW_BIN_DIR [OUT_DIR]
#
# Each BIN_DIR holds the programs `slabcast` and `prim_bench` (e.g. build/app/slabcast and
# build/primitives/bench/prim_bench copied side by side). OUT_DIR (default ./bench-compare-out) gets every run's JSON
# (base-N / new-N) and compare.md: per row, the best of the rounds of each build, new / base and whether it is within
# the tolerance. Exits non-zero when a row is outside it.
#
# Environment:
#   SLABCAST_COMPARE_ROUNDS      rounds of each program per build (default 2)
#   SLABCAST_COMPARE_TOLERANCE   allowed relative change of a row's time (default 0.03)
#   SLABCAST_COMPARE_BENCH_ARGS  arguments of `slabcast bench` (default: the default suite, no gl-raster reference,
#                                display off: the reference and the display path are not the renderer's time)
#   SLABCAST_COMPARE_PRIM_ARGS   arguments of prim_bench (default: --sizes 24,26)
#   SLABCAST_COMPARE_STEPS       "render prim" (default both)
set -uo pipefail

base="${1:?usage: scripts/bench-compare.sh BASE_BIN_DIR NEW_BIN_DIR [OUT_DIR]}"
new="${2:?usage: scripts/bench-compare.sh BASE_BIN_DIR NEW_BIN_DIR [OUT_DIR]}"
out="$(mkdir -p "${3:-./bench-compare-out}" && cd "${3:-./bench-compare-out}" && pwd)"
rounds="${SLABCAST_COMPARE_ROUNDS:-2}"
tolerance="${SLABCAST_COMPARE_TOLERANCE:-0.03}"
read -ra bench_args <<< "${SLABCAST_COMPARE_BENCH_ARGS:---reference none --display off}"
read -ra prim_args <<< "${SLABCAST_COMPARE_PRIM_ARGS:---sizes 24,26}"
read -ra steps <<< "${SLABCAST_COMPARE_STEPS:-render prim}"

say() { printf '\033[1m[bench-compare]\033[0m %s\n' "$*"; }
for dir in "$base" "$new"; do
  for program in slabcast prim_bench; do
    [ -x "$dir/$program" ] || { say "error: $dir/$program is missing or not executable"; exit 2; }
  done
done

failed=0
for round in $(seq 1 "$rounds"); do
  for side in base new; do
    dir="$base"; [ "$side" = new ] && dir="$new"
    for step in "${steps[@]}"; do
      case "$step" in
        render)
          say "round $round: $side slabcast bench ${bench_args[*]}"
          "$dir/slabcast" bench "${bench_args[@]}" --json "$out/render-$side-$round.json" \
            > "$out/render-$side-$round.log" 2>&1 || { say "$side slabcast bench failed (render-$side-$round.log)"; failed=1; } ;;
        prim)
          say "round $round: $side prim_bench ${prim_args[*]}"
          "$dir/prim_bench" "${prim_args[@]}" --json "$out/prim-$side-$round.json" \
            > "$out/prim-$side-$round.log" 2>&1 || { say "$side prim_bench failed (prim-$side-$round.log)"; failed=1; } ;;
        *) say "error: unknown step $step"; exit 2 ;;
      esac
    done
  done
done

python3 - "$out" "$tolerance" <<'PY' > "$out/compare.md"
import glob, json, os, sys
out, tol = sys.argv[1], float(sys.argv[2])

def best(kind, side, key, value):
    rows, env = {}, {}
    for path in sorted(glob.glob(os.path.join(out, f"{kind}-{side}-*.json"))):
        try:
            data = json.load(open(path))
        except (OSError, ValueError):
            continue
        env = data
        for r in data.get("rows", []):
            k, v = key(r), value(r)
            if v is not None and v > 0:
                rows[k] = min(rows.get(k, v), v)
    return rows, env

outside = 0
def table(title, kind, key, value, label, judged=True):
    global outside
    base, env = best(kind, "base", key, value)
    new, _ = best(kind, "new", key, value)
    if not base and not new:
        return
    print(f"## {title}\n")
    if env:
        gpu = env.get("gpu") or env.get("environment", {}).get("gpu", "")
        print(f"GPU: {gpu}\n")
    print("| row | base ms | new ms | new / base | within |")
    print("|---|---|---|---|---|")
    for k in list(base) + [k for k in new if k not in base]:
        b, n = base.get(k), new.get(k)
        if b is None or n is None:
            print(f"| {label(k)} | {b or '-'} | {n or '-'} | - | {'only in base' if n is None else 'only in new'} |")
            continue
        r = n / b
        ok = abs(r - 1) <= tol
        outside += judged and not ok
        print(f"| {label(k)} | {b:.4f} | {n:.4f} | {r:.3f} | {'yes' if ok else 'NO'} |")
    print()

table("slabcast bench: full frame, median ms (best of the rounds)", "render",
      lambda r: (r["scene"], r["width"], r["height"], r["slabs"]), lambda r: r["ms"]["total"]["median"],
      lambda k: f"{k[0]} {k[1]}x{k[2]} slabs {k[3]}")
table("prim_bench: ours, ms (best of the rounds)", "prim",
      lambda r: (r["op"], r["dist"], r["n"]), lambda r: r.get("ours_ms"),
      lambda k: f"{k[0]}, {k[1]}, 2^{k[2].bit_length() - 1}")
table("prim_bench: the peer (the same code in both builds: the machine's noise), ms", "prim",
      lambda r: (r["op"], r["dist"], r["n"]), lambda r: r.get("peer_ms"),
      lambda k: f"{k[0]}, {k[1]}, 2^{k[2].bit_length() - 1}", judged=False)
print(f"{outside} row(s) outside +-{tol:.0%}")
sys.exit(1 if outside else 0)
PY
status=$?
cat "$out/compare.md"
[ $failed -eq 0 ] && [ $status -eq 0 ]
