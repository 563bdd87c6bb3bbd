"""How far one seeded run of the queue lab's random (M/M/1) queue lands from its M/M/1 figures.

The lessons ask about one seeded run of the random queue (``labs/queue/schedule.py``): its
time-average over the 500 s run and its peak. A question about one run is fair only if the answer
it accepts holds for most seeds, not just for the lesson's. This bench runs the lab's own model
(:class:`labs.queue.model.QueueModel`, the same code the exercise is judged against) over many
seeds and prints, for a few settings:

- the average: the median, the 5th and 95th percentiles, and the share of seeds within a band
  around the M/M/1 mean L (the random-average exercise's tolerance);
- the peak: the median, the 5th and 95th percentiles, and the share of seeds whose peak over L
  falls in each of the ratio bands a choice can offer;
- where a given seed (the lab's default, 2026) falls among them.

Usage: ``.venv/bin/python -m bench.random_queue_spread [--seeds 2000] [--band 0.35]``
"""

from __future__ import annotations

import argparse

import numpy as np

from labs.queue.model import QueueModel

SETTINGS = {
    "λ = 1, μ = 2 (the lab after Reset)": (1.0, 2.0),
    "λ = 1.5, μ = 2.5 (ρ = 0.6)": (1.5, 2.5),
    "λ = 0.9, μ = 1 (ρ = 0.9)": (0.9, 1.0),
}
RATIO_EDGES = (1.3, 5.0)
"""The peak-over-L bands: under 1.3 × L, 1.3 to 5 × L, over 5 × L."""


def run(arrival: float, service: float, seed: int) -> tuple[float, float, float]:
    """The lab's random queue at these rates and seed, run to its end: (average, peak, L)."""
    model = QueueModel()
    model.reset()
    model.apply("random_queue", True)
    model.apply("arrival_rate", arrival)
    model.apply("service_rate", service)
    model.apply("seed", seed)
    end = model.horizon
    return float(model.random_average_at(end)), float(model.random_peak_at(end)), float(model.mm1.L)


def percentile_of(values: np.ndarray, value: float) -> float:
    """The share of ``values`` strictly below ``value``, plus half of those equal to it, in percent."""
    return 100.0 * (np.mean(values < value) + 0.5 * np.mean(values == value))


def report(name: str, arrival: float, service: float, seeds: int, band: float, own_seed: int) -> None:
    """Print the spread of the average and the peak over ``seeds`` seeds for one setting."""
    runs = np.array([run(arrival, service, seed) for seed in range(seeds)])
    averages, peaks, mean = runs[:, 0], runs[:, 1], runs[0, 2]
    ratios = peaks / mean
    own_average, own_peak, _ = run(arrival, service, own_seed)
    low, high = RATIO_EDGES
    print(f"{name}: L = {mean:.3g}, {seeds} seeds")
    p5, p50, p95 = np.percentile(averages, [5, 50, 95])
    within = np.mean(np.abs(averages - mean) <= band)
    print(f"  average: median {p50:.2f} (5–95%: {p5:.2f}–{p95:.2f}); within ±{band} of L: {within:.1%}")
    print(f"    seed {own_seed}: {own_average:.2f}, at the {percentile_of(averages, own_average):.0f}th percentile")
    p5, p50, p95 = np.percentile(peaks, [5, 50, 95])
    print(f"  peak: median {p50:.0f} (5–95%: {p5:.0f}–{p95:.0f})")
    print(
        f"    peak / L under {low:g}: {np.mean(ratios < low):.1%}, {low:g} to {high:g}: "
        f"{np.mean((ratios >= low) & (ratios <= high)):.1%}, over {high:g}: {np.mean(ratios > high):.1%}"
    )
    print(
        f"    seed {own_seed}: peak {own_peak:.0f} = {own_peak / mean:.2f} × L, "
        f"at the {percentile_of(peaks, own_peak):.0f}th percentile"
    )


def main() -> None:
    """Print the spread for every setting in :data:`SETTINGS`."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2000, help="seeds 0 … N − 1 (default 2000)")
    parser.add_argument("--band", type=float, default=0.35, help="the average's band around L (default 0.35)")
    parser.add_argument("--seed", type=int, default=2026, help="the seed to place among them (default 2026)")
    args = parser.parse_args()
    for name, (arrival, service) in SETTINGS.items():
        report(name, arrival, service, args.seeds, args.band, args.seed)


if __name__ == "__main__":
    main()
