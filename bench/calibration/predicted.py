"""The model's predictions for the GPU calibration runs at each script's nominal settings
(their defaults: the step time each script aims its compute at, its batch size or buffer), on
one hardware profile, without a GPU and without PyTorch. Prints the rows of the table in
docs/impact-model.md with the measured columns "not measured"; `run_all.sh` on a GPU replaces
them with measured rows, whose predictions use the measured step time.

    python3 bench/calibration/predicted.py [--gpu h200]
"""
import argparse

import common

# (pattern label, model, workload, facts): the scripts' defaults.
NOMINAL = [
    ("pageable-copy (64 MB/step, T_gpu 20 ms)", "pageable-copy",
     {"step-time-ms": 20, "batch-bytes": 64 * 2**20}, {}),
    ("blocking-copy (64 MB/step, T_gpu 20 ms)", "blocking-copy",
     {"step-time-ms": 20, "batch-bytes": 64 * 2**20}, {}),
    ("sync-bubble (every 1 step, T_gpu 5 ms)", "sync-bubble", {"step-time-ms": 5}, {"amortize_every": 1}),
    ("small-batch (4 -> 64, default T_gpu)", "small-batch", {}, {"batch_size": 4}),
    ("alloc-in-loop (256 MB, T_gpu 10 ms)", "alloc-in-loop", {"step-time-ms": 10}, {"allocs_per_step": 2}),
]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--gpu", default="h200")
    args = p.parse_args()
    print(common.HEADER)
    for label, model, workload, facts in NOMINAL:
        pred = common.predict(model, args.gpu, workload, facts)
        now = [1 - x for x in pred["idle_now"]]
        after = [1 - x for x in pred["idle_after"]]
        gain = pred["gain_pp"]

        def span(v):
            lo, hi = sorted(v)
            return f"{100 * lo:.0f}%" if round(100 * lo) == round(100 * hi) else f"{100 * lo:.0f}..{100 * hi:.0f}%"

        print(f"| {label} | {args.gpu} | not measured (no GPU lent) | not measured | not measured | "
              f"{span(now)} | {span(after)} | +{gain[0]:.0f}..{gain[1]:.0f} |")


if __name__ == "__main__":
    main()
